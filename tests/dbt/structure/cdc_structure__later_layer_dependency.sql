{#- Structure rule `later_layer_dependency` (see macros/testing/cdc_structure_violations.sql). -#}
{{ config(tags=['cdc_structure']) }}

{{ cdc_structure_violations('later_layer_dependency') }}
