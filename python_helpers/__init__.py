"""Helpers around the dbt CDC project.

Reads the Kafka Connect schema blocks embedded in landed Debezium events,
generates the Spark ``from_json`` schemas the dbt macros use, lands Kafka
topic dumps into the raw tables and scaffolds models for new topics.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
