"""Where the readers' bytes come from: local paths and fsspec URLs (`access`, `remote`), mapped
in place (`mapping`), read by worker processes (`read_worker`, `read_worker_main`).
"""
