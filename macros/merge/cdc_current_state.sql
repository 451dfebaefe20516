{#-
    Returns the select of a current-state model: the newest change event per
    `unique_key` (by _cdc_position, i.e. source order) among the staging
    rows of `relation`. On incremental runs only batches landed after the
    newest one already merged are read (a literal filter Iceberg prunes
    files with); the project's merge (spark__get_merge_sql) lands a change
    on a stored row only if it is newer.

    Deletes: in a model configured `cdc_delete_markers=true` (the scaffolded
    `<model>__state` tables) a delete is kept as its key's row, `_cdc_op =
    'd'`, with its position: a late or replayed older event of that key then
    meets a newer stored row and changes nothing, so a deleted key cannot
    come back (the analysts' view, cdc_current_view, hides the markers).
    Without it, deletes remove rows and a first build leaves out keys whose
    newest event is a delete.

    Kept values (cdc_kept_columns): a text, binary or text-array column
    holding Debezium's unavailable-value placeholder (PostgreSQL TOAST), and
    a column of the model's `cdc_ignore_null_updates` that an update (op u)
    sets to null, take the key's value from the newest earlier event that
    carried one: of the batch or the stored row, whichever is newer (null
    when none was ever seen; a delete forgets it); the placeholder is never
    written. `_cdc_value_positions` records, per such column, the position
    of the event the value came from, so an older event landing in a later
    batch still fills (or corrects) it: the stored row is then re-emitted at
    its own position with the value (the merge condition is `>=`). A
    primary-key change's create takes the old key's kept values
    (cdc_key_change_carries).

    Vanished keys: with `cdc_snapshot_deletes`, a complete snapshot landed
    in the batch deletes the keys it lacks (cdc_snapshot_deletes.sql), and
    an earlier one deletes again a key it lacks that an older event landing
    in the batch brings.

    Truncates (op t): every event older than the newest truncate of the
    topic (in any batch, landed before or with this one) is dropped here,
    and the pre-hook cdc_apply_truncates deletes the stored rows older than a
    truncate in the batches this run merges.
-#}
{% macro cdc_current_state(relation, unique_key) %}
    {{- return(adapter.dispatch('cdc_current_state', 'cdc')(relation, unique_key)) -}}
{% endmacro %}

{% macro default__cdc_current_state(relation, unique_key) -%}
    {%- set keys = [unique_key] if unique_key is string else unique_key -%}
    {%- set watermark = cdc_merged_batch_watermark() -%}
    {%- set markers = config.get('cdc_delete_markers', false) -%}
    {#- all batches: a late event older than a truncate merged by an earlier
        run must not come back either -#}
    {%- set staging = cdc_staging_parent() -%}
    {%- set truncated_at = cdc_newest_truncate(staging, none) -%}
    {%- set columns = cdc_staging_columns(staging) -%}
    {%- set fillable = cdc_kept_columns(columns, keys) -%}
    {#- incremental runs read the stored row of each key in the batch -#}
    {%- set stored = load_relation(this) if watermark is not none else none -%}
    {#- columns staging has and the stored table not yet (a column added
        since: dbt appends it after this select) read null from it -#}
    {%- set stored_names = cdc_stored_names(stored) -%}
    {%- set positions = '_cdc_value_positions' in stored_names -%}
    {#- whether the batch's newest event of a key is newer than its stored
        row: written once, the column `_cdc_newer` of `resolved` (a lateral
        alias) that every column and the filter read (issue 71) -#}
    {%- set merged = stored is not none and columns -%}
    {%- set newer_test =
        '(stored._cdc_position is null or latest.newest._cdc_position > stored._cdc_position)' -%}
    {%- set newer = '_cdc_newer' if merged else 'true' if stored is none else newer_test -%}
    {#- keys a complete snapshot lacks: deleted (cdc_snapshot_deletes.sql);
        the stored rows only by one that completes in this batch -#}
    {%- set snapshots = cdc_completed_snapshots(staging, columns, watermark) -%}
    {#- a key change's create given the old key's kept values
        (cdc_key_change_carries.sql) -#}
    {%- set carries = cdc_key_change_carries(relation, stored, columns, keys, fillable, watermark) -%}
    {%- set events = relation if not carries.strip() else
        '(select * from ' ~ relation ~ ' union all ' ~ carries ~ ')' -%}
    {%- set fixes = [] -%}
    select
        {%- for column in columns %}
        {%- if column.name in fillable %}
        resolved.{{ cdc_ident(column.name) }}.v as {{ cdc_ident(column.name) }},
        {%- else %}
        resolved.{{ cdc_ident(column.name) }},
        {%- endif %}
        {%- endfor %}
        {%- if not columns %}
        resolved.*,
        {%- endif %}
        {%- if fillable %}
        map_filter(map(
            {%- for name in fillable %}
            {{ cdc_string(name) }}, resolved.{{ cdc_ident(name) }}.p{{ "," if not loop.last }}
            {%- endfor %}
        ), (column_name, position) -> position is not null) as _cdc_value_positions
        {%- else %}
        cast(map() as map<string, array<bigint>>) as _cdc_value_positions
        {%- endif %}
    from (
        select
            {%- if merged %}
            {{ newer_test }} as _cdc_newer,
            {%- endif %}
            {%- for column in columns %}
            {%- set name = column.name %}
            {%- set field = 'latest.newest.' ~ cdc_ident(name) %}
            {%- set kept = ('stored.' ~ cdc_ident(name)) if name in stored_names
                else 'cast(null as ' ~ column.data_type ~ ')' %}
            {%- if name in fillable %}
            {%- set known = 'latest.' ~ cdc_ident('_cdc_known_' ~ name) %}
            {%- if stored is not none %}
            {%- set given = "element_at(stored._cdc_value_positions, '" ~ name ~ "')"
                if positions else 'cast(null as array<bigint>)' %}
            {%- set late_fix = '_cdc_late_' ~ (fixes | length) %}
            {%- do fixes.append(late_fix) %}
            {#- an older event landing later fills a value that was unknown
                when the newer row was merged #}
            (not {{ newer }} and stored._cdc_op != 'd' and {{ given }} is not null
                and {{ known }}.p > {{ given }} and {{ known }}.p < stored._cdc_position)
                as {{ late_fix }},
            {%- endif %}
            {#- an unavailable (TOASTed, unchanged) value: the newest one known
                before it, from this batch or the stored row (p: the position
                it was known at, null when it is the row's own) #}
            case
                when {{ newer }}
                    and not {{ cdc_keeps_previous('latest.newest', name, fillable[name]) }}
                    then named_struct('p', cast(null as array<bigint>), 'v', {{ field }})
                {%- if stored is none %}
                else coalesce({{ known }},
                    named_struct('p', cast(array() as array<bigint>), 'v', null))
                {%- else %}
                {#- a marker's columns are its `before` image: not a value #}
                when {{ newer }} then coalesce(
                    greatest({{ known }}, if(stored._cdc_position is null, null, named_struct(
                        'p', coalesce({{ given }}, stored._cdc_position),
                        'v', if(stored._cdc_op = 'd', null, {{ kept }})))),
                    named_struct('p', cast(array() as array<bigint>), 'v', null))
                when {{ late_fix }} then {{ known }}
                else named_struct('p', {{ given }}, 'v', {{ kept }})
                {%- endif %}
            end as {{ cdc_ident(name) }}{{ "," if not loop.last }}
            {%- elif stored is none %}
            {{ field }}{{ "," if not loop.last }}
            {%- elif name == '_landing_batch' and fixes %}
            {#- a row re-emitted with a value an older event filled is
                written by this batch (what a change feed reads) -#}
            if({{ newer }}, {{ field }}, greatest({{ kept }}, {{ field }})) as {{ cdc_ident(name) }}
            {{- "," if not loop.last }}
            {%- else %}
            if({{ newer }}, {{ field }}, {{ kept }}) as {{ cdc_ident(name) }}
            {{- "," if not loop.last }}
            {%- endif %}
            {%- endfor %}
            {%- if not columns %}
            latest.newest.*
            {%- endif %}
        from (
            select
                max_by(struct(changes.*), changes._cdc_position) as newest
                {%- for name, rule in fillable.items() %},
                {#- the column's newest value in the batch and its position;
                    a delete's is null (the key was gone) #}
                max_by(
                    named_struct(
                        'p', changes._cdc_position,
                        'v', if(changes._cdc_op = 'd', null, changes.{{ cdc_ident(name) }})
                    ),
                    if(changes._cdc_op != 'd'
                        and {{ cdc_keeps_previous('changes', name, rule) }},
                        null, changes._cdc_position)
                ) as {{ cdc_ident('_cdc_known_' ~ name) }}
                {%- endfor %}
            {%- if snapshots %}
            {#- the batch's events and the deletes its complete snapshots make -#}
            {%- set sent_and_made %}
                select * from {{ events }} as batch
                where {{ cdc_new_batches_filter('batch._landing_batch', watermark) }}
                union all
                {{ cdc_vanished_key_deletes(relation, stored, columns, keys, snapshots, watermark,
                    truncated_at) }}
            {%- endset %}
            {%- endif %}
            {%- if snapshots | length > 1 %}
            {#- two snapshots completing in one run: a key the earlier one
                deleted is deleted once, by it (no event of the key between
                them brought it back), as in a replay in source order #}
            from (
                select {{ _cdc_key_list('sent', columns | map(attribute='name') | list) }}
                from (
                    select
                        sent_or_made.*,
                        lag(sent_or_made._cdc_op) over (
                            partition by {{ _cdc_key_list('sent_or_made', keys) }}
                            order by sent_or_made._cdc_position
                        ) as _cdc_previous_op
                    from ({{ sent_and_made }}
                    ) as sent_or_made
                ) as sent
                where not (sent._cdc_source_snapshot <=> 'vanished' and sent._cdc_previous_op <=> 'd')
            ) as changes
            {%- elif snapshots %}
            from ({{ sent_and_made }}
            ) as changes
            {%- else %}
            from {{ events }} as changes
            {%- endif %}
            where
                changes._cdc_op != 't'
                and {{ cdc_new_batches_filter('changes._landing_batch', watermark) }}
                {%- if truncated_at %}
                and not ({{ cdc_position_before('changes._cdc_position', truncated_at) }})
                {%- endif %}
            group by {{ _cdc_key_list('changes', keys) }}
        ) as latest
        {%- if stored is not none %}
        left join {{ stored }} as stored
            on {% for key in keys %}latest.newest.{{ cdc_ident(key) }} <=> stored.{{ cdc_ident(key) }}
            {{- " and " if not loop.last }}{% endfor %}
        {%- endif %}
        {%- if not merged %}
        where {{ newer }}
            {%- if watermark is none and not markers %}
            and latest.newest._cdc_op != 'd'
            {%- endif %}
        {%- endif %}
    ) as resolved
    {%- if merged %}
    {#- a key's row is written when its newest event is newer than the
        stored row, or an older one fills a value it lacked #}
    where resolved._cdc_newer
        {%- for fix in fixes %}
        or resolved.{{ fix }}
        {%- endfor %}
    {%- endif %}
{%- endmacro %}

{#- The columns of a staging relation (none when not executing or not
    built yet). -#}
{% macro cdc_staging_columns(staging) -%}
    {%- if not execute or staging is none or load_relation(staging) is none -%}
        {{- return([]) -}}
    {%- endif -%}
    {%- set looked_up = cdc_lookup() -%}
    {{- return(cdc_columns_of(staging, looked_up.staging_columns
        if looked_up.get('staging') == staging else none)) -}}
{%- endmacro %}

{#- The column names of the model's own table `stored` (a relation, or none
    on a first build): from the model's look-up. -#}
{% macro cdc_stored_names(stored) -%}
    {%- if stored is none -%}
        {{- return([]) -}}
    {%- endif -%}
    {{- return(cdc_lookup().this_names or (cdc_columns_of(stored, none) | map(attribute='name') | list)) -}}
{%- endmacro %}

{#- Of `columns` (a relation's, from adapter.get_columns_in_relation), those
    that can hold Debezium's unavailable-value placeholder (an unchanged
    TOASTed PostgreSQL value, an unavailable Oracle LOB): name -> Spark type,
    for text, binary and text-array columns that are not keys. -#}
{% macro cdc_toastable_columns(columns, keys) -%}
    {%- set found = {} -%}
    {%- for column in columns -%}
        {%- set data_type = column.data_type | lower | replace(' ', '') -%}
        {%- if not cdc_is_metadata_column(column.name) and column.name not in keys
            and data_type in ('string', 'binary', 'array<string>') -%}
            {%- do found.update({column.name: data_type}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(found) -}}
{%- endmacro %}

{#- Of `columns`, those whose value in an event can mean "unchanged, keep
    the key's previous one": name -> rule, a dict of `data_type` (the
    Spark type when the column can hold the unavailable-value placeholder,
    cdc_toastable_columns; else none) and `null_updates` (an update's null
    in it is ignored: cdc_ignore_null_update_columns). -#}
{% macro cdc_kept_columns(columns, keys) -%}
    {%- set toastable = cdc_toastable_columns(columns, keys) -%}
    {%- set ignored = cdc_ignore_null_update_columns(columns, keys) -%}
    {%- set found = {} -%}
    {%- for column in columns if column.name in toastable or column.name in ignored -%}
        {%- do found.update({column.name: {
            'data_type': toastable.get(column.name),
            'null_updates': column.name in ignored,
        }}) -%}
    {%- endfor -%}
    {{- return(found) -}}
{%- endmacro %}

{#- The columns (of `columns`, less keys and metadata) whose null in an
    update keeps the key's previous value: the model's config
    `cdc_ignore_null_updates`, a list of columns or `{'except': [...]}`
    (every column but those; sync writes it from the topic's declaration,
    `ignore_null_updates`). A listed column the relation lacks is an
    error. -#}
{% macro cdc_ignore_null_update_columns(columns, keys) -%}
    {%- set setting = config.get('cdc_ignore_null_updates') -%}
    {%- set names = cdc_value_column_names(columns, keys) -%}
    {%- if setting is none or not columns -%}
        {{- return([]) -}}
    {%- endif -%}
    {%- set listed = setting['except'] if setting is mapping else setting -%}
    {%- set unknown = listed | reject('in', names) | list -%}
    {%- if unknown -%}
        {%- do exceptions.raise_compiler_error(
            'cdc_ignore_null_updates names ' ~ (unknown | join(', '))
            ~ ', not a non-key column of ' ~ this ~ ' (its columns: ' ~ (names | join(', ')) ~ ')') -%}
    {%- endif -%}
    {{- return(names | reject('in', listed) | list if setting is mapping else listed) -}}
{%- endmacro %}

{#- The names of `columns` that hold source values: not a key in `keys`,
    not a metadata column (`_...`). -#}
{% macro cdc_value_column_names(columns, keys) -%}
    {%- set names = [] -%}
    {%- for column in columns if column.name not in keys and not cdc_is_metadata_column(column.name) -%}
        {%- do names.append(column.name) -%}
    {%- endfor -%}
    {{- return(names) -}}
{%- endmacro %}

{#- True when the value of column `name` in the event `row` (an alias)
    means "unchanged, keep the key's previous value" under `rule` (from
    cdc_kept_columns): the unavailable-value placeholder, or a null set by
    an update in a column whose null updates are ignored. Never null. -#}
{% macro cdc_keeps_previous(row, name, rule) -%}
    {%- set field = row ~ '.' ~ cdc_ident(name) -%}
    {%- set tests = [] -%}
    {%- if rule.data_type -%}
        {%- do tests.append(cdc_is_unavailable(field, rule.data_type)) -%}
    {%- endif -%}
    {%- if rule.null_updates -%}
        {%- do tests.append('(' ~ row ~ "._cdc_op = 'u' and " ~ field ~ ' is null)') -%}
    {%- endif -%}
    ({{ tests | join(' or ') }})
{%- endmacro %}

{#- True when `expr` (of Spark type `data_type`) is the unavailable-value
    placeholder (var cdc_unavailable_value_placeholder, Debezium's default
    `__debezium_unavailable_value`): the text, its bytes, or a one-item
    array of it. Never null. -#}
{% macro cdc_is_unavailable(expr, data_type) -%}
    {%- set placeholder = var('cdc_unavailable_value_placeholder', '__debezium_unavailable_value')
        | replace("'", "\\'") -%}
    {%- if data_type == 'binary' -%}
        coalesce({{ expr }} = cast({{ cdc_string(placeholder) }} as binary), false)
    {%- elif data_type == 'array<string>' -%}
        coalesce({{ expr }} = array({{ cdc_string(placeholder) }}), false)
    {%- else -%}
        coalesce({{ expr }} = {{ cdc_string(placeholder) }}, false)
    {%- endif -%}
{%- endmacro %}

{#- `alias.`k1`, alias.`k2`, ...`: the key columns of `keys`. -#}
{% macro _cdc_key_list(alias, keys) -%}
    {%- for key in keys %}{{ alias }}.{{ cdc_ident(key) }}{{ ", " if not loop.last }}{% endfor -%}
{%- endmacro %}
