"""Median warm render time per page on the 120-document demo (AppTest, this machine)."""
import os, statistics, sys, time
sys.path.insert(0, "tests")
import store
from apptest_helpers import new_app, sign_in, DemoApp
path = sys.argv[1]
os.environ["WORKBENCH_DB"] = path
with store.connect(path) as db:
    pid = store.list_projects(db)[0].id
    app = DemoApp(db_path=path, project_id=pid)
    for u, r in (("lead2", "lead"),):
        if store.get_user(db, u) is None: store.create_user(db, u, "benchmark pass phrase " + u, r)
rows = []
for page, user, role in (("home", "lead2", "lead"), ("home", "ana", "annotator"), ("annotate", "ana", "annotator"),
                         ("review", "rita", "reviewer"), ("admin", "lead2", "lead")):
    at = new_app(app); sign_in(at, app, user, role); at.run(); at.switch_page(f"pages/{page}.py")
    t = time.perf_counter(); at.run(); cold = time.perf_counter() - t
    warm = []
    for _ in range(7):
        t = time.perf_counter(); at.run(); warm.append(time.perf_counter() - t)
    assert not at.exception and not at.error, [e.value for e in at.error]
    rows.append((page, role, cold, statistics.median(warm)))
print(f"{'page':10} {'role':10} {'first s':>8} {'warm median s':>14}")
for p, r, c, w in rows:
    print(f"{p:10} {r:10} {c:8.3f} {w:14.3f}")
