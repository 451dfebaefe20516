{#- Structure rule `primary_key_untested` (see macros/testing/cdc_structure_violations.sql). -#}
{{ config(tags=['cdc_structure']) }}

{{ cdc_structure_violations('primary_key_untested') }}
