"""The dbt project's files: model names, scaffolded and generated models (from
templates/), properties edits, the project check, and init.
"""
