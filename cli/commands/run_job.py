"""The worker process behind a job started from the app (:func:`services.jobs.start_job`)."""
NAME = "run-job"
HELP = "run a queued job (started by the app; rarely typed by hand)"


def add_arguments(p) -> None:
    p.add_argument("--db", required=True, help="SQLite file of the project")
    p.add_argument("--job", type=int, required=True, help="job id")


def run(args) -> int:
    from services.worker import run_job
    return run_job(args.db, args.job)
