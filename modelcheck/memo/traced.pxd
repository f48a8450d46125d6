# Read by Cython when ``modelcheck compile`` builds modelcheck/memo/traced.py (an augmenting .pxd; the
# build is keyed by this file too): ``Traced`` as an extension type whose operations read C fields, and
# the successor-entries writer, which reads them too.

cimport cython

cdef extern from *:
    """
    /* Item i of a tuple or of a record (a tuple subclass): PySequence_GetItem on a record goes through
       its class's __getitem__ (the slot wrapper of tuple's), about 750 instructions where this takes a
       few.  New reference; NULL with IndexError where `t` is no tuple or too short. */
    static PyObject *mc_tuple_item(PyObject *t, Py_ssize_t i) {
        PyObject *x;
        if (!PyTuple_Check(t) || i < 0 || i >= PyTuple_GET_SIZE(t)) {
            PyErr_SetString(PyExc_IndexError, "mc_tuple_item: no such item");
            return NULL;
        }
        x = PyTuple_GET_ITEM(t, i);
        Py_INCREF(x);
        return x;
    }
    """
    object mc_tuple_item(object t, Py_ssize_t i)

cdef class Traced:
    cdef readonly object _v
    cdef readonly object _k
    cdef readonly list _log

cdef class SuccessorEntries:
    cdef readonly object shape
    cdef readonly object fallback

@cython.locals(tr=Traced, children=tuple, n=Py_ssize_t, i=Py_ssize_t)
cdef bint _entries(object node, object t, object p, list out, object intern) except -1
