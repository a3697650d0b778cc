# Two commands: `make run` and `make test`. Everything else is what they need.
PY        ?= python3
VENV      := .venv
BIN       := $(VENV)/bin
FLASK     := $(BIN)/flask --app inspector
PORT      ?= 5000
STAMP     := $(VENV)/.installed
VENDOR    := static/vendor
CHROMIUM  := /usr/bin/chromium

.PHONY: run serve test setup s3-emulator vendor chromium poppler fonts wrk redis db clean bench lint screenshots

run: setup db
	@echo "inspector on http://127.0.0.1:$(PORT)  (demo logins in README.md)"
	$(BIN)/python -m inspector.devserver --port $(PORT)

# A real town (docs/production.md): no demo data, never; the schema is brought up to date,
# then gunicorn refuses to start (one line per reason, exit 2) on the demo password, a weak
# SECRET_KEY or a PUBLIC_BASE_URL that is not https. The tick runs from systemd (deploy/).
# gunicorn's settings are make run's (inspector/gunicorn_conf.py): one worker process with
# threads, so rate limits hold for the whole server; WORKERS=N needs RATELIMIT_STORAGE_URI.
BIND    ?= 127.0.0.1:8000
WORKERS ?= 1
serve: setup
	mkdir -p instance
	INSPECTOR_ENV=production $(FLASK) db upgrade
	INSPECTOR_ENV=production $(BIN)/gunicorn --config python:inspector.gunicorn_conf --preload \
	  --workers $(WORKERS) --bind $(BIND) \
	  --forwarded-allow-ips 127.0.0.1 --access-logfile - 'inspector:create_app()'

# Python's bytecode is cached, outside the tree: the suite starts the app in ~70 processes of
# its own (CLI, gunicorn, restores), each compiling ~240 modules again when it may not write
# (PYTHONDONTWRITEBYTECODE=1 on these machines); 0.3 s of CPU apiece.
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX ?= $(CURDIR)/$(VENV)/pycache

# Two workers (the machine has two cores); a file's tests stay on one worker, except the shards
# of a long test, sent last to whichever worker is free (tests/conftest.py). The slowest 20 listed.
PYTEST_ARGS ?= -n 2 --dist loadfile
test: setup s3-emulator chromium poppler fonts redis
	$(BIN)/pytest --durations=20 $(PYTEST_ARGS)

# The S3-compatible server the evidence tests start on loopback (tests/evidence_s3/):
# LocalStack's S3 in a venv of its own, never committed (4.14 fails on Python 3.11; its
# runtime needs the older cryptography and pyOpenSSL). /work/shared/TESTING.md.
S3VENV := .venv-s3
s3-emulator: $(S3VENV)/.installed
$(S3VENV)/.installed:
	test -d $(S3VENV) || $(PY) -m venv $(S3VENV)
	$(S3VENV)/bin/pip install -q 'localstack-core[base-runtime]==4.13.1' 'cryptography<45' \
	  'pyopenssl<25' 'cbor2<6' service-identity && touch $@ \
	  || echo "aviso: $(S3VENV) não foi criado; os testes de tests/evidence_s3 serão pulados"

setup: $(STAMP) $(VENDOR)/.copied

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

# Stamps: a second `make setup` (and every `make serve`, `make run`) does no pip or npm work
# until pyproject.toml, package.json or package-lock.json change. The npm stamp is ours, not
# npm's own node_modules/.package-lock.json, which npm rewrites or drops as it sees fit.
NPM_STAMP := node_modules/.inspector-installed
$(NPM_STAMP): package.json package-lock.json
	npm install --no-audit --no-fund --loglevel=error
	touch $@

# Vendor assets are copied from node_modules, never committed.
$(VENDOR)/.copied: $(NPM_STAMP)
	mkdir -p $(VENDOR)
	cp node_modules/htmx.org/dist/htmx.min.js $(VENDOR)/htmx.min.js
	cp node_modules/idb/build/umd.js $(VENDOR)/idb.umd.js
	cp node_modules/barcode-detector/dist/iife/ponyfill.js $(VENDOR)/barcode-detector.js
	cp node_modules/zxing-wasm/dist/reader/zxing_reader.wasm $(VENDOR)/zxing_reader.wasm
	touch $@

vendor: $(VENDOR)/.copied

# Debian's Chromium for Playwright, and its headless shell (lighter; most browser tests run in
# it, tests/support/config.py); installed only when missing (needs root).
chromium:
	@{ test -x $(CHROMIUM) && test -x $(CHROMIUM)-headless-shell; } || { \
	  echo "installing Debian chromium and chromium-headless-shell"; apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell >/dev/null; }

# pdftoppm and pdftotext (Debian poppler-utils): the credential-sheet and notice-document
# tests rasterise and read the PDFs the app prints.
poppler:
	@{ command -v pdftoppm && command -v pdftotext; } >/dev/null || { echo "installing Debian poppler-utils"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null; }

# DejaVu (Debian fonts-dejavu-core): the notice PDFs embed it (without it, ReportLab's
# bundled Vera is used: same Portuguese letters, plainer hashes). docs/documents.md.
fonts:
	@test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf || { echo "installing Debian fonts-dejavu-core"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-dejavu-core >/dev/null; }

# Debian's redis-server: tests/multinode starts one on loopback (the store two app servers share
# for rate limits, RATELIMIT_STORAGE_URI=redis://...); installed only when missing (needs root).
redis:
	@test -x /usr/bin/redis-server || { echo "installing Debian redis-server"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; }

# wrk (Debian): bench/verify.py loads the passenger page with it.
wrk:
	@command -v wrk >/dev/null || { echo "installing Debian wrk"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

# Schema and demo data, on every start: both are no-ops once done (the seed writes nothing twice).
db: setup
	mkdir -p instance
	$(FLASK) db upgrade
	$(FLASK) demo seed

# Figures, not tests (docs/figures.md); field.py drives Chromium, verify.py uses wrk,
# load.py Locust (the `bench` extra) against PostgreSQL.
bench: setup wrk chromium
	$(BIN)/pip install -q -e '.[bench]'
	$(BIN)/python bench/registry.py
	$(BIN)/python bench/verify.py
	$(BIN)/python bench/rules.py
	$(BIN)/python bench/field.py
	$(BIN)/python bench/sync_budget.py
	$(BIN)/python bench/review.py
	$(BIN)/python bench/audit_lookups.py
	$(BIN)/python bench/sw_version.py
	$(BIN)/python bench/many_towns.py
	$(BIN)/python bench/load.py  # Locust on PostgreSQL (.ci/run starts it): minutes

# ruff (rules in pyproject.toml) on the Python, the import contracts ([tool.importlinter] in
# pyproject.toml, drawn in docs/architecture.md), ESLint (eslint.config.js) on the PWA's JavaScript.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	npx --no-install eslint .

# Each person's main screens at 360 and 1280 px, from a fresh demo (bench/screenshots.py),
# in docs/screenshots/ (kept in git: a change's pictures are reviewed with it).
screenshots: setup chromium
	$(BIN)/python bench/screenshots.py --out docs/screenshots

clean:
	rm -rf $(VENV) node_modules $(VENDOR) instance/*.sqlite3 instance/evidence
