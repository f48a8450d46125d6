# Read by Cython when ``modelcheck compile`` builds modelcheck/memo/tries.py (an augmenting .pxd; the
# build is keyed by this file too).  The tries and the learner as extension types: the learner's
# bookkeeping reads their fields and calls their methods in C instead of through instance dicts.

cimport cython

cdef class Tries:
    cdef public Py_ssize_t width, n_nodes, n_leaves, n_entries, n_edges, version
    cdef public object comp, edges, root, true_mask, leaves, entries
    cdef public list _true_masks, comps, roots
    cdef public dict _pending
    cdef public object _empty, _flushed
    cdef public list _new_counts, _new_starts, _new_entries, _new_masks
    cpdef Py_ssize_t node(self, Py_ssize_t k)
    cpdef set_root(self, Py_ssize_t f, Py_ssize_t code)
    @cython.locals(code=Py_ssize_t, before=Py_ssize_t, w=Py_ssize_t, s=Py_ssize_t, at=Py_ssize_t, k=Py_ssize_t,
                   v=Py_ssize_t, out=list)
    cpdef Py_ssize_t leaf(self, Py_ssize_t count, tuple entries=*)
    cpdef set_mask(self, Py_ssize_t code, list path, Py_ssize_t holds_in=*)
    cpdef Py_ssize_t pending_edge(self, Py_ssize_t n, Py_ssize_t v)
    cpdef set_edge(self, Py_ssize_t n, Py_ssize_t v, Py_ssize_t code)

cdef class Learner:
    cdef public object layout, intern, c, state_type
    cdef public Tries tries
    cdef public list functions, log, traced
    cdef public Py_ssize_t evaluations
    @cython.locals(tries=Tries, code=Py_ssize_t, depth=Py_ssize_t, node=Py_ssize_t, comps=list,
                   path=list, below=list)
    cpdef Py_ssize_t learn(self, Py_ssize_t f, object row, object at=*) except? -3
    cpdef Py_ssize_t _action_leaf(self, object r, object s) except? -3
