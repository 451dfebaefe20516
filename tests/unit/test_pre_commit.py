"""The pre-commit hooks (.pre-commit-config.yaml) run this checkout's own
tools on the files given, and fail on what `make test` would fail on: in a
throwaway git repository holding the config and the project's machinery
(linked), a model and a Python file pass or fail by their content."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from project_paths import PROJECT

MODEL = PROJECT / "models" / "current" / "postgres" / "postgres__shop_public_orders.sql"
LINKED = (".venv", "python_helpers", "macros", "pyproject.toml")
COPIED = (".pre-commit-config.yaml", ".sqlfluff", ".sqlfluffignore")


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "models").mkdir(parents=True)
    for name in LINKED:
        (repo / name).symlink_to(PROJECT / name)
    for name in COPIED:
        shutil.copy(PROJECT / name, repo / name)
    text = MODEL.read_text(encoding="utf-8")
    (repo / "models" / "good.sql").write_text(text, encoding="utf-8")
    shouted = text.replace("select * from final", "SELECT * FROM final")
    (repo / "models" / "bad.sql").write_text(shouted, encoding="utf-8")
    (repo / "good.py").write_text("import os\n\nprint(os.sep)\n", encoding="utf-8")
    (repo / "bad.py").write_text("import os\n", encoding="utf-8")  # unused import
    for command in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", *command], cwd=repo, check=True)
    return repo


def _hook(repo: Path, hook: str, *files: str) -> subprocess.CompletedProcess[str]:
    command = [str(PROJECT / ".venv" / "bin" / "pre-commit"), "run", hook, "--files", *files]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, check=False)


def test_the_hooks_pass_good_files_and_fail_bad_ones(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    good_sql = _hook(repo, "sqlfluff", "models/good.sql")
    assert good_sql.returncode == 0, good_sql.stdout
    bad_sql = _hook(repo, "sqlfluff", "models/bad.sql")
    assert bad_sql.returncode != 0 and "CP01" in bad_sql.stdout, bad_sql.stdout
    assert _hook(repo, "ruff", "good.py").returncode == 0
    bad_py = _hook(repo, "ruff", "bad.py")
    assert bad_py.returncode != 0 and "F401" in bad_py.stdout, bad_py.stdout
