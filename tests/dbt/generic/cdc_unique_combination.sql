{#-
    Fails when a combination of columns (a composite primary key) is null
    or repeated: returns one row per offending combination.
-#}
{% test cdc_unique_combination(model, columns) %}

with

keyed as (
    select
        {% for column in columns %}{{ cdc_ident(column) }}{{ "," if not loop.last }}
        {% endfor %}
    from {{ model }}
),

final as (
    select
        {% for column in columns %}{{ cdc_ident(column) }},
        {% endfor %}
        count(*) as occurrences
    from keyed
    group by {% for column in columns %}{{ cdc_ident(column) }}{{ ", " if not loop.last }}{% endfor %}
    having count(*) > 1 or {% for column in columns %}{{ cdc_ident(column) }} is null{{ " or " if not loop.last }}{% endfor %}
)

select * from final

{% endtest %}
