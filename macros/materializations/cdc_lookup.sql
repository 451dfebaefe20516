{#-
    The one look-up statement of an incremental CDC model (issue 54). What a
    model's compiled select, its pre-hooks and its materialization need to
    know about the tables it reads and writes is read in ONE query, when the
    model is compiled, and kept for the rest of the node's run:

      watermark      the newest `_landing_batch` the model holds (none on a
                     first build or a full refresh): the literal every
                     batch filter is written with (cdc_new_batches_filter);
      this_columns   the model's table: its columns, names and Spark types
                     (none on a first build);
      replay         whether a row of the table meets the model's
                     `incremental_predicates` (a quarantined record a new
                     spec covers, in a base model): the merge is then a
                     merge, else the insert it amounts to;
      staging_columns, truncate_all, truncate_new
                     for a model with a staging parent: the staging view's
                     columns, its newest truncate in any batch and in the
                     batches after the watermark (cdc_apply_truncates);
      key_changes    for a state model (`cdc_delete_markers`): whether the
                     batches after the watermark hold a create naming an
                     old key (`__debezium.oldkey`): only then does its
                     select carry TOASTed values across a key change
                     (cdc_key_change_carries), which costs a state model
                     seconds of planning in every run otherwise;
      newest         on an incremental run of a model that reads one
                     input batch by batch (a base model: its raw landing
                     table; a model with a staging parent: the staging
                     view; a MongoDB current state: its base model), the
                     newest batch that input holds: when it is no newer
                     than the watermark (and no replay is due), the
                     model's select would read nothing, and its run sends
                     no statement (cdc_nothing_new).

    Columns without a `describe`: the names are the keys of
    `to_json(struct(t.*))` of a null row (`ignoreNullFields` off), which
    are exact whatever a name holds; the types are read from
    `typeof(struct(t.*))` knowing the names (cdc_struct_columns). A type
    text that does not read back exactly (a nested field name holding
    `<`, `>`, `(`, `)` or `,` can make it ambiguous) gives `none`, and the callers
    fall back to a `describe` (cdc_columns_of).

    Kept in `graph` (the manifest's flat graph, one dict for the whole
    invocation) under the node's id and the invocation's: compilation and
    the materialization run in different Jinja contexts of the same
    thread, and `graph` is the one object both see.
-#}
{% macro cdc_lookup() %}
    {%- if not execute -%}
        {{- return({}) -}}
    {%- endif -%}
    {%- set nodes = _cdc_lookups() -%}
    {%- if model.unique_id not in nodes -%}
        {%- do nodes.update({model.unique_id: _cdc_run_lookup()}) -%}
    {%- endif -%}
    {{- return(nodes[model.unique_id]) -}}
{% endmacro %}

{#- The look-up of this node if it ran in this invocation, else none. -#}
{% macro cdc_lookup_if_run() %}
    {{- return(_cdc_lookups().get(model.unique_id) if execute else none) -}}
{% endmacro %}

{#- This invocation's look-ups by node id (a new dict for a new
    invocation: a process can run several), made by one `setdefault` (a
    single step for Python): two threads starting their first nodes at
    once each made a dict and the second replaced the first, so a node of
    the first thread sent its look-up twice (seen once in `make test`). -#}
{% macro _cdc_lookups() %}
    {{- return(graph.setdefault('_cdc_lookups_' ~ invocation_id, {})) -}}
{% endmacro %}

{% macro _cdc_run_lookup() -%}
    {%- set incremental = is_incremental() -%}
    {%- set staging = cdc_staging_parent() -%}
    {%- if staging is not none and load_relation(staging) is none -%}
        {%- set staging = none -%}
    {%- endif -%}
    {%- set hooks = (model.config.get('pre-hook') or []) | map(attribute='sql') | join(' ') -%}
    {#- truncates: for a model of change events (not a transaction
        topic's); the newest of all batches for one that applies them
        (the current-state pre-hook) -#}
    {%- set truncates = staging is not none
        and model.config.meta.get('cdc_kind', 'changes') == 'changes' -%}
    {%- set all_truncates = truncates and 'cdc_apply_truncates' in hooks -%}
    {%- set predicates = config.get('incremental_predicates') or [] -%}
    {%- set parts = [] -%}
    {%- set joins = [] -%}
    {%- set found = {'incremental': incremental, 'watermark': none, 'this_names': none,
        'this_columns': none, 'replay': false, 'staging': none, 'staging_names': none,
        'staging_columns': none, 'truncates': truncates, 'all_truncates': all_truncates,
        'truncate_all': none, 'truncate_new': none, 'key_changes': false, 'newest': none,
        'reads_newest': false} -%}
    {%- set key_changes = staging is not none and config.get('cdc_delete_markers', false) -%}
    {#- what is read from the rows, in one pass over each table: the
        watermark (one scan of the model's table) and, joined to it, the
        staging view's newest truncates, key changes and batch (one scan of
        the view; a subquery each was four scans and a plan each: a state
        model's look-up took 1.5 s warm, now 0.7 s, issue 71) -#}
    {%- set read = [] -%}
    {%- if incremental -%}
        {%- do read.append('max(marked.watermark) as watermark') -%}
        {%- do parts.append(_cdc_names_and_type('stored', 'this')) -%}
        {%- do joins.append('left join (select * from ' ~ this ~ ' limit 0) as stored on true') -%}
        {%- if predicates -%}
            {%- do parts.append('(select count(*) from (select 1 from ' ~ this
                ~ ' as DBT_INTERNAL_DEST where (' ~ (predicates | join(') and (')) ~ ') limit 1)) as replay') -%}
        {%- endif -%}
    {%- endif -%}
    {#- the staging rows a run reads: those of batches after the watermark -#}
    {%- set newer = " and rows._landing_batch > coalesce(marked.watermark, -1)" -%}
    {%- set input = _cdc_batched_input(staging) if incremental else none -%}
    {%- if staging is not none -%}
        {%- do parts.append(_cdc_names_and_type('staged', 'staging')) -%}
        {%- do joins.append('left join (select * from ' ~ staging ~ ' limit 0) as staged on true') -%}
        {%- if all_truncates -%}
            {%- do read.append("cast(max(rows._cdc_position) filter (where rows._cdc_op = 't')"
                ~ " as string) as truncate_all") -%}
        {%- endif -%}
        {%- if truncates and incremental -%}
            {%- do read.append("cast(max(rows._cdc_position) filter (where rows._cdc_op = 't'"
                ~ newer ~ ") as string) as truncate_new") -%}
        {%- endif -%}
        {%- if key_changes -%}
            {%- do read.append("count_if(rows._cdc_op = 'c'"
                ~ " and rows._kafka_headers['__debezium.oldkey'] is not null" ~ newer
                ~ ") as key_changes") -%}
        {%- endif -%}
        {%- if input is not none -%}
            {%- do read.append('max(rows._landing_batch) as newest') -%}
        {%- endif -%}
    {%- elif input is not none -%}
        {%- do parts.append('(select max(' ~ input[1] ~ ') from ' ~ input[0] ~ ') as newest') -%}
    {%- endif -%}
    {%- if read -%}
        {%- do parts.insert(0, 'looked.*') -%}
        {%- do joins.append('left join (select ' ~ (read | join(', ')) ~ ' from '
            ~ ('(select max(_landing_batch) as watermark from ' ~ this ~ ')' if incremental
                else '(select cast(null as bigint) as watermark)') ~ ' as marked'
            ~ ((' left join ' ~ staging ~ ' as rows on true') if staging is not none else '')
            ~ ') as looked on true') -%}
    {%- endif -%}
    {%- if not parts -%}
        {{- return(found) -}}
    {%- endif -%}
    {%- set row = run_query('select ' ~ (parts | join(', ')) ~ ' from (select 1) as one '
        ~ (joins | join(' '))).rows[0] -%}
    {%- if incremental -%}
        {%- set watermark = row['watermark'] -%}
        {%- set names = fromjson(row['this_names']) -%}
        {%- do found.update({
            'watermark': -1 if watermark is none else watermark | int,
            'this_names': names,
            'this_columns': cdc_struct_columns(names, row['this_type']),
            'replay': predicates | length > 0 and (row['replay'] | int) > 0,
        }) -%}
    {%- endif -%}
    {%- if staging is not none -%}
        {%- set names = fromjson(row['staging_names']) -%}
        {%- do found.update({
            'staging': staging,
            'staging_names': names,
            'staging_columns': cdc_struct_columns(names, row['staging_type']),
        }) -%}
        {%- if all_truncates -%}
            {%- do found.update({'truncate_all': row['truncate_all']}) -%}
        {%- endif -%}
        {%- if truncates and incremental -%}
            {%- do found.update({'truncate_new': row['truncate_new']}) -%}
        {%- endif -%}
        {%- if key_changes -%}
            {%- do found.update({'key_changes': (row['key_changes'] | int) > 0}) -%}
        {%- endif -%}
    {%- endif -%}
    {%- if input is not none -%}
        {%- set newest = row['newest'] -%}
        {%- do found.update({'reads_newest': true,
            'newest': none if newest is none else newest | int}) -%}
    {%- endif -%}
    {{- return(found) -}}
{%- endmacro %}

{#- The one input an incremental model reads batch by batch, as (relation,
    its batch column), or none: the staging view `staging` of a model with
    a staging parent; the raw landing table of a base model (its one
    parent, a source); the base model of a model whose one parent it is (a
    MongoDB topic's current state). -#}
{% macro _cdc_batched_input(staging) -%}
    {%- if staging is not none -%}
        {{- return((staging, '_landing_batch')) -}}
    {%- endif -%}
    {%- set parents = (model.get('depends_on') or {}).get('nodes') or [] -%}
    {%- if parents | length != 1 -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- if parents[0].startswith('source.') and model.config.meta.get('cdc_layer') == 'base' -%}
        {%- set parent = (graph.get('sources') or {}).get(parents[0]) -%}
        {%- if parent -%}
            {{- return((api.Relation.create(database=parent.database, schema=parent.schema,
                identifier=parent.identifier), 'landing_batch')) -}}
        {%- endif -%}
    {%- endif -%}
    {%- set base = cdc_parent_of_layer('base') -%}
    {{- return(none if base is none else (base, '_landing_batch')) -}}
{%- endmacro %}

{#- Whether this incremental run of the model would read nothing (its
    look-up `looked_up`, none when its select did not ask for one): its
    input holds no batch newer than the watermark and no replay is due, or
    its select noted that it reads nothing (cdc_reads_nothing).
    Such a run sends no statement: the table stays as it is, which is what
    the select would have left (a run with nothing new changes nothing,
    checked by the end-to-end runs). -#}
{% macro cdc_nothing_new(looked_up) -%}
    {{- return(looked_up is not none and looked_up.incremental
        and (looked_up.get('reads_nothing', false)
            or (looked_up.reads_newest and not looked_up.replay
                and (looked_up.newest is none or looked_up.newest <= looked_up.watermark)))) -}}
{%- endmacro %}

{#- Note that this incremental run of the model reads nothing, known when
    its select is compiled (the quarantine counts of a run in which every
    count is current: cdc_quarantine_counts): its look-up, then
    cdc_nothing_new, say so, and the run sends no statement. -#}
{% macro cdc_reads_nothing() -%}
    {%- if execute and is_incremental() -%}
        {%- do _cdc_lookups().update({model.unique_id: {'incremental': true, 'reads_nothing': true}}) -%}
    {%- endif -%}
{%- endmacro %}

{#- Whether this node's select is sent to Spark: not in a run or build of
    a `cdc_incremental` model with nothing new (cdc_nothing_new), whose
    materialization sends no statement. The parts of a select that cost a
    query of their own when compiled (the complete snapshots of
    cdc_snapshot_deletes) are looked for only when it is: 5-15 s of a
    quiet run of a topic with snapshots (issue 71). `dbt compile`, `show`
    and `docs generate` write every select in full. -#}
{% macro cdc_select_is_sent() -%}
    {{- return(not (execute and flags.WHICH in ('run', 'build', 'retry')
        and config.get('materialized') == 'cdc_incremental'
        and cdc_nothing_new(cdc_lookup()))) -}}
{%- endmacro %}

{#- `<prefix>_names, <prefix>_type` of the null row `alias` (a relation
    left-joined with `limit 0`): its column names as a JSON array, its
    struct type as Spark writes it. -#}
{% macro _cdc_names_and_type(alias, prefix) -%}
    to_json(json_object_keys(to_json(struct({{ alias }}.*), map('ignoreNullFields', 'false'))))
        as {{ prefix }}_names,
    typeof(struct({{ alias }}.*)) as {{ prefix }}_type
{%- endmacro %}

{#- The columns of a relation as dicts of `name` and `data_type`, from its
    exact column `names` (in order) and its `typeof(struct(t.*))` text
    `type_text`; none when the text does not read back exactly from those
    names (a field's type must be balanced in `<>` and `()`). -#}
{% macro cdc_struct_columns(names, type_text) -%}
    {%- if not (type_text.startswith('struct<') and type_text.endswith('>')) -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set body = type_text[7:-1] -%}
    {%- set state = namespace(pos=0, ok=true) -%}
    {%- set columns = [] -%}
    {%- for name in names if state.ok -%}
        {%- set head = name ~ ':' -%}
        {%- if body[state.pos:state.pos + head | length] != head -%}
            {%- set state.ok = false -%}
        {%- else -%}
            {%- set start = state.pos + head | length -%}
            {%- set end = namespace(at=none) -%}
            {%- if loop.last -%}
                {%- set end.at = body | length -%}
            {%- else -%}
                {%- set marker = ',' ~ names[loop.index0 + 1] ~ ':' -%}
                {%- for found in modules.re.finditer(modules.re.escape(marker), body[start:])
                    if end.at is none and _cdc_balanced(body[start:start + found.start()]) -%}
                    {%- set end.at = start + found.start() -%}
                {%- endfor -%}
            {%- endif -%}
            {%- if end.at is none or not _cdc_balanced(body[start:end.at]) or end.at == start -%}
                {%- set state.ok = false -%}
            {%- else -%}
                {%- do columns.append({'name': name, 'data_type': body[start:end.at]}) -%}
                {%- set state.pos = end.at + 1 -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(columns if state.ok and columns | length == names | length else none) -}}
{%- endmacro %}

{% macro _cdc_balanced(text) -%}
    {{- return(text.count('<') == text.count('>') and text.count('(') == text.count(')')) -}}
{%- endmacro %}

{#- The columns of `relation` (dicts or dbt columns with `name` and
    `data_type`): from the look-up when it read them, else a `describe`. -#}
{% macro cdc_columns_of(relation, looked_up) -%}
    {%- if looked_up is not none -%}
        {{- return(looked_up) -}}
    {%- endif -%}
    {%- set columns = [] -%}
    {%- for column in adapter.get_columns_in_relation(relation) -%}
        {%- do columns.append({'name': column.name, 'data_type': column.data_type}) -%}
    {%- endfor -%}
    {{- return(columns) -}}
{%- endmacro %}
