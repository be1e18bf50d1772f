"""Store timings on the full MEDDOCAN corpus (train + dev, 750 docs): medians of 5 runs."""
import statistics, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, "/work/main")
sys.path.insert(0, "/work/main/tests")
import store
from pipeline.schemas import MEDDOCAN
from test_store import read_brat_sample

root = Path("/work/shared/data/meddocan")
docs = read_brat_sample(root / "train") + read_brat_sample(root / "dev")
rows = {k: [] for k in ("add_documents (all)", "read_project_layer gold", "read_layer (1 doc)",
                        "save_layer (1 doc)", "stats", "backup")}
for rep in range(5):
    d = Path(tempfile.mkdtemp())
    with store.connect(d / "b.db") as db:
        pid = store.create_project(db, "m", MEDDOCAN)
        t = time.perf_counter(); ids = store.add_documents(db, pid, docs); rows["add_documents (all)"].append(time.perf_counter() - t)
        t = time.perf_counter(); g = store.read_project_layer(db, pid, "gold"); rows["read_project_layer gold"].append(time.perf_counter() - t)
        ts, tr = [], []
        for i in ids[:50]:
            t = time.perf_counter(); st = store.read_layer(db, i, "gold"); tr.append(time.perf_counter() - t)
            t = time.perf_counter(); store.save_layer(db, i, "gold", st.spans, expected_version=st.version, user="x"); ts.append(time.perf_counter() - t)
        rows["read_layer (1 doc)"].append(statistics.median(tr)); rows["save_layer (1 doc)"].append(statistics.median(ts))
        t = time.perf_counter(); store.stats(db, pid); rows["stats"].append(time.perf_counter() - t)
        t = time.perf_counter(); store.backup(d / "b.db", d / "bk.db"); rows["backup"].append(time.perf_counter() - t)
print(f"{len(docs)} documents, {sum(len(x.spans) for x in docs)} spans")
print(f"{'operation':28s} {'median ms':>10s}")
for k, v in rows.items():
    print(f"{k:28s} {statistics.median(v) * 1000:10.1f}")
