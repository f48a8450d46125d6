# Read by Cython when ``modelcheck compile`` builds modelcheck/memo/tries.py (an augmenting .pxd; the
# build is keyed by this file too).  The tries and the learner as extension types: the learner's
# bookkeeping reads their fields and calls their methods in C instead of through instance dicts.

cimport cython
from libc.stdint cimport uint64_t

cdef extern from *:
    """
    /* The components of an evaluation's read log in the order of their first use (the path of its tree):
       a flag per component, where a dict of the log's items cost about 5,000 instructions an evaluation
       on Kip320.  New reference, NULL on an error (an item that is not a component below `width`). */
    static PyObject *mc_first_uses(PyObject *log, Py_ssize_t width) {
        Py_ssize_t n = PyList_GET_SIZE(log), j;
        unsigned char *seen = calloc(width > 0 ? width : 1, 1);
        PyObject *out;
        if (seen == NULL) return PyErr_NoMemory();
        out = PyList_New(0);
        for (j = 0; out != NULL && j < n; j++) {
            PyObject *x = PyList_GET_ITEM(log, j);
            Py_ssize_t k = PyLong_AsSsize_t(x);
            if (k < 0 || k >= width) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a read log names no component");
                Py_CLEAR(out);
            } else if (!seen[k]) {
                seen[k] = 1;
                if (PyList_Append(out, x) < 0) Py_CLEAR(out);
            }
        }
        free(seen);
        return out;
    }

    /* Bit k % 64 for each component k of `path`, a list of ints; (uint64_t)-1 with an error set if one
       is not an int. */
    static uint64_t mc_path_mask(PyObject *path) {
        Py_ssize_t n = PyList_GET_SIZE(path), j;
        uint64_t m = 0;
        for (j = 0; j < n; j++) {
            Py_ssize_t k = PyLong_AsSsize_t(PyList_GET_ITEM(path, j));
            if (k == -1 && PyErr_Occurred()) return (uint64_t)-1;
            m |= (uint64_t)1 << (k & 63);
        }
        return m;
    }
    """
    list mc_first_uses(list log, Py_ssize_t width)
    uint64_t mc_path_mask(list path) except? <uint64_t>-1

cdef inline object _edge_key(Py_ssize_t n, Py_ssize_t v)

cdef class Tries:
    cdef public Py_ssize_t width, n_nodes, n_leaves, n_entries, n_edges, version
    cdef public object comp, edges, root, true_mask, leaves, entries
    cdef public list _true_masks, comps, roots
    cdef public dict _pending, _pending_roots
    cdef public object before_replace
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
    cdef public object layout, intern, c, state_type, value_id
    cdef public Tries tries
    cdef public list functions, log, traced
    cdef public Py_ssize_t evaluations
    @cython.locals(tries=Tries, code=Py_ssize_t, depth=Py_ssize_t, node=Py_ssize_t, comps=list,
                   path=list, below=list)
    cpdef Py_ssize_t learn(self, Py_ssize_t f, object row, object at=*) except? -3
    cpdef Py_ssize_t _action_leaf(self, object r, object s) except? -3
