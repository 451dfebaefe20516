{#- Structure rule `undocumented` (see macros/testing/cdc_structure_violations.sql). -#}
{{ config(tags=['cdc_structure']) }}

{{ cdc_structure_violations('undocumented') }}
