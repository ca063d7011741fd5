"""The pages come with the package: built as an install builds it (pip's wheel, with the package
data of pyproject.toml), a copy with no checkout beside it serves every page and every file
of service/static/web."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "service" / "static" / "web"

SERVE = r"""
import json, sys
import service
from service.app import create_app
from service.config import Settings
app = create_app(Settings(redis_url=sys.argv[1], key_prefix=sys.argv[2]))
client = app.test_client()
pages = {p: client.get(p) for p in ["/", "/play/AAAAAAAAAAAAAAAA", "/watch/AAAAAAAAAAAAAAAA", "/replay/AAAAAAAAAAAAAAAA",
                                    "/guides", "/guides/RULES", "/guides/PLAY"]}
files = {name: client.get("/web/" + name) for name in sys.argv[3:]}
print(json.dumps({"module": service.__file__,
                  "pages": {p: [r.status_code, r.mimetype] for p, r in pages.items()},
                  "files": {n: [r.status_code, len(r.data)] for n, r in files.items()}}))
"""


def test_a_built_copy_of_the_package_serves_every_page_and_file(tmp_path, redis_url, key_prefix):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    for package in ("service", "schemas", "workers"):
        shutil.copytree(REPO / package, src / package, symlinks=False,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # the wheel pip builds for an install (its isolated build gets the setuptools pyproject.toml
    # asks for), unpacked as an install unpacks it
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheels), str(src)],
                   check=True, capture_output=True, timeout=300)
    lib = tmp_path / "lib"
    (wheel,) = wheels.glob("ginbox-*.whl")
    zipfile.ZipFile(wheel).extractall(lib)

    names = sorted(p.name for p in WEB.iterdir() if p.suffix in (".js", ".css", ".svg"))
    env = dict(os.environ, PYTHONPATH=str(lib))
    out = subprocess.run([sys.executable, "-c", SERVE, redis_url, key_prefix, *names], cwd=tmp_path, env=env,
                         check=True, capture_output=True, text=True, timeout=120)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["module"].startswith(str(lib))  # the built copy, not the checkout
    assert all(status == 200 and media == "text/html" for status, media in got["pages"].values()), got["pages"]
    assert {n: s for n, (s, size) in got["files"].items() if s != 200 or size == 0} == {}
    assert len(got["files"]) >= 8
