"""Stand-in for the one torch._C hook the probe uses: the allocator's out-of-memory observers."""

observers = []


def _cuda_attach_out_of_memory_observer(callback):
    observers.append(callback)


def standin_reset():
    observers.clear()
