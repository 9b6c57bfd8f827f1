"""Solving one batch over the processes of an MPI job, with mpi4py.

batchode's distributed algorithm is C++ (batchode::distributed: every process checks the batch and
that all were given the same one, shares are sized by each process's predicted throughput, the runs
of a process that fails are solved by the others, results are gathered to rank 0 or written by all
into one .h5 file); it talks to the other processes through a Collective, implemented here with
mpi4py, so the package links no MPI library and works with whichever MPI mpi4py was built for.

    mpirun -n 4 python3 sweep.py

    from mpi4py import MPI
    r = batchode.solve_ivp(model, (0, 10), parameters={"rho": rhos}, comm=MPI.COMM_WORLD)
    if MPI.COMM_WORLD.rank == 0: ...  # r holds every run; elsewhere, r holds that process's share
"""

from . import _batchode

_PIECE = 1 << 30  # MPI counts are int: messages and writes go in pieces of at most 1 GiB
_TAG = 7157


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("comm= needs mpi4py (Debian: python3-mpi4py)") from e
    return MPI


class Mpi4pyCollective(_batchode.Collective):
    """batchode's Collective over an mpi4py communicator. Every method is collective."""

    def __init__(self, comm):
        _batchode.Collective.__init__(self)
        MPI = _mpi()
        if not isinstance(comm, MPI.Comm):
            raise TypeError(f"comm must be an mpi4py communicator (MPI.COMM_WORLD), not {type(comm).__name__}")
        self.comm = comm.Dup()  # batchode's messages never meet the caller's receives
        node = comm.Split_type(MPI.COMM_TYPE_SHARED)
        self._local = (node.Get_rank(), node.Get_size())
        node.Free()

    def rank(self):
        return self.comm.Get_rank()

    def size(self):
        return self.comm.Get_size()

    def local_rank(self):
        return self._local[0]

    def local_size(self):
        return self._local[1]

    def allgather(self, text):
        # bytes, not str: a message need not be UTF-8, and a decoding error on one process alone
        # would leave the others waiting
        return self.comm.allgather(bytes(text))

    def abort(self, why):
        import sys
        sys.stderr.write(why + "\n")
        sys.stderr.flush()
        self.comm.Abort(1)

    def gather(self, data, into, bytes_by_rank, root):
        MPI = _mpi()
        if self.comm.Get_rank() != root:
            for at in range(0, len(data), _PIECE):
                self.comm.Send([data[at:at + _PIECE], MPI.BYTE], dest=root, tag=_TAG)
            return
        at = 0
        for rank, n in enumerate(bytes_by_rank):
            if rank == root:
                into[at:at + n] = data[:n]
            else:
                for got in range(0, n, _PIECE):
                    piece = min(_PIECE, n - got)
                    self.comm.Recv([into[at + got:at + got + piece], MPI.BYTE], source=rank, tag=_TAG)
            at += n

    def write_at_all(self, path, pieces):
        MPI = _mpi()
        parts = [(offset + done, view[done:done + _PIECE]) for offset, view in pieces
                 for done in range(0, len(view), _PIECE)]
        calls = self.comm.allreduce(len(parts), op=MPI.MAX)
        handle, error = None, ""
        try:
            handle = MPI.File.Open(self.comm, path, MPI.MODE_WRONLY)
        except MPI.Exception as e:
            error = f"opening '{path}' for MPI-IO: {e}"
        # every process learns whether every open succeeded, so none waits alone in the writes
        if not self.comm.allreduce(handle is not None, op=MPI.LAND):
            if handle is not None:
                handle.Close()
            return error or f"another process could not open '{path}' for MPI-IO"
        for k in range(calls):
            offset, view = parts[k] if k < len(parts) else (0, bytearray(0))
            try:
                handle.Write_at_all(offset, [view, MPI.BYTE])
            except MPI.Exception as e:
                error = error or f"writing {len(view)} bytes at {offset} of '{path}': {e}"
        try:
            handle.Close()
        except MPI.Exception as e:
            error = error or f"closing '{path}': {e}"
        return error
