"""torch.utils.data._utils.worker: WorkerInfo and get_worker_info."""

from ..worker import WorkerInfo, get_worker_info  # noqa: F401
