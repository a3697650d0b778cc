"""Configuration: defaults here, then instance/config.py, then the environment, then tests;
and the program's version (`version()`)."""
import functools
import os
import secrets
import tomllib
from datetime import timedelta
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS = Path(__file__).resolve().parent / "migrations"  # Alembic's folder
# Where links and QR codes point when PUBLIC_BASE_URL is unset (development and tests; the
# production start refuses to run without it). Never the request's Host header.
DEFAULT_PUBLIC_BASE_URL = "http://127.0.0.1:5000"
# The password of the demo's accounts (README "Demo logins"): never accepted in a real town.
DEMO_PASSWORD = "vistoria-demo"

# The program's version, what `flask version`, /healthz and every backup's manifest report.
# Read at run time, never written twice: from `pyproject.toml` beside the package when the
# program runs from its source tree (`make setup` installs it editable, so the installed
# metadata keeps the version of the last `pip install` until the next one), otherwise from
# the installed package's metadata (a wheel).
PYPROJECT = ROOT / "pyproject.toml"


# bench/caches.py: reading pyproject.toml costs 0.8 ms a call
@functools.lru_cache(maxsize=1)
def version() -> str:
    """The version string, e.g. '1.0.0' ('desconhecida' when neither source has one)."""
    try:
        with open(PYPROJECT, "rb") as f:
            project = tomllib.load(f).get("project", {})
        if project.get("name") == "inspector" and project.get("version"):
            return str(project["version"])
    except (OSError, tomllib.TOMLDecodeError):
        pass
    try:
        return metadata.version("inspector")
    except metadata.PackageNotFoundError:
        return "desconhecida"



def _secret_key(instance_path: Path) -> str | None:
    """Read the instance's secret key, creating it on first start (never a literal)."""
    env = os.environ.get("SECRET_KEY")
    if env:
        return env
    path = instance_path / "secret_key"
    if not path.exists():
        if _environment() == "production":  # never made up for a real town: the start refuses
            return None
        instance_path.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def _environment() -> str:
    """INSPECTOR_ENV: "production" for a real town (docs/production.md), else "demo"."""
    value = (os.environ.get("INSPECTOR_ENV") or "demo").strip().lower()
    if value not in ("demo", "production"):
        raise SystemExit(f"erro: INSPECTOR_ENV={value!r} não é válido: use production ou demo")
    return value


def _flag(name: str) -> bool | None:
    """An on/off environment setting: None when unset."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return None
    if value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if value.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise SystemExit(f"erro: {name}={value!r} não é válido: use 1 (sim) ou 0 (não)")


def _origin(name: str) -> str | None:
    """An http(s) origin (optionally with a path prefix) from the environment, without the
    trailing slash: None when unset. It is printed in every QR code, so a typo stops the start."""
    value = (os.environ.get(name) or "").strip()
    if not value:
        return None
    scheme, _, rest = value.partition("://")
    if scheme not in ("http", "https") or not rest or rest.startswith("/") or " " in value:
        raise SystemExit(f"erro: {name}={value!r} não é um endereço válido: use, por exemplo, "
                         "https://fiscaliza.tapurah.mt.gov.br")
    return value.rstrip("/")


def _port(name: str) -> int | None:
    """A TCP port from the environment (None when unset)."""
    value = (os.environ.get(name) or "").strip()
    if not value:
        return None
    if not (value.isascii() and value.isdigit() and 0 < int(value) < 65536):
        raise SystemExit(f"erro: {name}={value!r} não é válido: use um número de porta (ex. 587)")
    return int(value)


def _count(name: str) -> int:
    """A whole number >= 0 from the environment (0 when unset)."""
    value = (os.environ.get(name) or "0").strip()
    if not value.isascii() or not value.isdigit() or len(value) > 2:
        raise SystemExit(f"erro: {name}={value!r} não é válido: use um número inteiro (0, 1, 2...)")
    return int(value)


def _backend() -> str:
    """EVIDENCE_BACKEND: "packs" (default) or "s3" (needs EVIDENCE_S3_BUCKET)."""
    value = (os.environ.get("EVIDENCE_BACKEND") or "packs").strip().lower()
    if value not in ("packs", "s3"):
        raise SystemExit(f"erro: EVIDENCE_BACKEND={value!r} não é válido: use packs ou s3")
    return value


def public_base_url_warning(config) -> str | None:
    """The warning to log at start when the address printed in QR codes and documents is not
    set (they would point at 127.0.0.1:5000); None in tests and debug."""
    if config.get("PUBLIC_BASE_URL") or config.get("TESTING") or config.get("DEBUG"):
        return None
    return ("PUBLIC_BASE_URL não definido: os QR das credenciais e dos documentos apontam para "
            "http://127.0.0.1:5000; defina o endereço público do servidor "
            "(ex.: PUBLIC_BASE_URL=https://fiscaliza.tapurah.mt.gov.br)")


def rate_limit_warning(config) -> str | None:
    """The warning to log at start when rate limits are counted in each worker's memory
    (every gunicorn worker keeps its own counts, lost on restart); None in tests, debug
    or with a shared store (redis://, memcached://...)."""
    uri = str(config.get("RATELIMIT_STORAGE_URI") or "memory://")
    if not uri.startswith("memory://") or config.get("TESTING") or config.get("DEBUG"):
        return None
    return ("RATELIMIT_STORAGE_URI=memory://: os limites de tentativas (login, página do "
            "passageiro) são contados na memória deste processo (um worker com threads, "
            "inspector/gunicorn_conf.py) e zerados a cada reinício; com mais de um processo "
            "ou servidor defina um armazenamento compartilhado (ex.: redis://127.0.0.1:6379)")


def defaults(instance_path: Path) -> dict:
    """The settings every deployment starts from."""
    return {
        # "production": no demo data, and the web server refuses to start on the demo
        # password, a weak SECRET_KEY or a PUBLIC_BASE_URL that is not https
        # (inspector/operations/production.py)
        "INSPECTOR_ENV": _environment(),
        "SECRET_KEY": _secret_key(instance_path),
        # folders of town law outside the package (each with packs/ and laws/), separated
        # by ':': docs/adding-a-town.md
        "RULES_EXTRA_DIR": os.environ.get("RULES_EXTRA_DIR", ""),
        "SQLALCHEMY_DATABASE_URI": os.environ.get(
            "DATABASE_URL", f"sqlite:///{instance_path / 'inspector.sqlite3'}"
        ),
        "SQLALCHEMY_ENGINE_OPTIONS": {"pool_pre_ping": True},
        "SESSION_COOKIE_NAME": "inspector_session",
        "SESSION_COOKIE_SECURE": True,
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "PERMANENT_SESSION_LIFETIME": timedelta(days=30),
        "SESSION_IDLE_TIMEOUT": timedelta(days=14),
        "WTF_CSRF_TIME_LIMIT": None,  # the token lives as long as the session
        "WTF_CSRF_SSL_STRICT": False,  # Referer checks break behind proxies; the token is enough
        "RATELIMIT_STORAGE_URI": os.environ.get("RATELIMIT_STORAGE_URI", "memory://"),
        "RATELIMIT_HEADERS_ENABLED": True,
        # a shared store (redis://) that stops answering: each process counts alone, in
        # memory, until it is back (Flask-Limiter logs it), rather than answer 500
        "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED": True,
        "LOGIN_RATE_LIMIT": "10 per minute;50 per hour",
        # how many reverse proxies in front of the app add X-Forwarded-For: the client's
        # address (what rate limits count) is the entry the outermost one added; 0 = the
        # header is never read (anyone can send it). docs/security.md.
        "TRUSTED_PROXIES": _count("TRUSTED_PROXIES"),
        "MAX_CONTENT_LENGTH": 16 * 1024 * 1024,
        # the original bytes of evidence photos, one file per SHA-256
        # (inspector/inspections/evidence_store.py); back it up with the database
        "EVIDENCE_DIR": os.environ.get("EVIDENCE_DIR", str(instance_path / "evidence")),
        # fsync each evidence file before the row recording it commits: None = as durable
        # as the database's own commit (PostgreSQL yes; SQLite in WAL + synchronous=NORMAL
        # no, its commits already survive a crash of the app but not a power cut)
        "EVIDENCE_FSYNC": _flag("EVIDENCE_FSYNC"),
        # where new evidence photos go: "packs" (EVIDENCE_DIR, above) or "s3", an
        # S3-compatible object store (AWS S3, MinIO, Ceph; docs/object-storage.md
        # storage"). Photos already kept stay readable where their row says.
        "EVIDENCE_BACKEND": _backend(),
        "EVIDENCE_S3_BUCKET": os.environ.get("EVIDENCE_S3_BUCKET", ""),
        "EVIDENCE_S3_PREFIX": os.environ.get("EVIDENCE_S3_PREFIX", ""),
        "EVIDENCE_S3_ENDPOINT_URL": os.environ.get("EVIDENCE_S3_ENDPOINT_URL") or None,
        "EVIDENCE_S3_REGION": os.environ.get("EVIDENCE_S3_REGION") or None,
        # unset: boto3's own chain (AWS_ACCESS_KEY_ID..., ~/.aws, an instance role)
        "EVIDENCE_S3_ACCESS_KEY_ID": os.environ.get("EVIDENCE_S3_ACCESS_KEY_ID") or None,
        "EVIDENCE_S3_SECRET_ACCESS_KEY": os.environ.get("EVIDENCE_S3_SECRET_ACCESS_KEY") or None,
        "LOG_LEVEL": os.environ.get("LOG_LEVEL", "INFO"),
        # Argon2id's cost (inspector/passwords.py): "standard" always; the tests' config says
        # "test", which a production start refuses. Not read from the environment.
        "PASSWORD_HASH_COST": "standard",
        # the SMTP server of the vistoria reminders by e-mail (docs/vistoria.md): none is sent
        # without SMTP_HOST
        "SMTP_HOST": os.environ.get("SMTP_HOST", "").strip(),
        "SMTP_PORT": _port("SMTP_PORT"),
        "SMTP_FROM": os.environ.get("SMTP_FROM", "").strip(),
        "SMTP_USER": os.environ.get("SMTP_USER", "").strip(),
        "SMTP_PASSWORD": os.environ.get("SMTP_PASSWORD", ""),
        "SMTP_STARTTLS": bool(_flag("SMTP_STARTTLS")),
        # the origin printed in every QR code (credentials, documents): where passengers'
        # phones will open it; `make run` sets it to its own port
        "PUBLIC_BASE_URL": _origin("PUBLIC_BASE_URL"),
        # bench/field.py turns this on in its own app factory call: PUT /_bench/upload
        # (inspector/blueprints/bench/). Never on in production; not read from the environment.
        "BENCH_ENDPOINTS": False,
    }
