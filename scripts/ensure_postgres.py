"""Check that PostgreSQL answers at a DATABASE_URL and create the database if missing.

Exit 0 when ready, 1 when the server cannot be reached.
"""

import sys
import time
from urllib.parse import urlparse

import psycopg
from psycopg import sql


def main(url: str) -> int:
    parsed = urlparse(url)
    name = parsed.path.lstrip("/") or "tradepost"
    admin_url = parsed._replace(path="/postgres").geturl()
    for attempt in range(10):
        try:
            with psycopg.connect(admin_url, autocommit=True, connect_timeout=3) as conn:
                exists = conn.execute(
                    "SELECT 1 FROM pg_database WHERE datname = %s", (name,)
                ).fetchone()
                if not exists:
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
                return 0
        except psycopg.OperationalError as error:
            print(f"waiting for PostgreSQL ({attempt + 1}/10): {error}", file=sys.stderr)
            time.sleep(1)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
