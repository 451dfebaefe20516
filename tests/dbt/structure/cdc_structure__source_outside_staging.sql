{#- Structure rule `source_outside_staging` (see macros/testing/cdc_structure_violations.sql). -#}
{{ config(tags=['cdc_structure']) }}

{{ cdc_structure_violations('source_outside_staging') }}
