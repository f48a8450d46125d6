# Read by Cython when ``modelcheck compile`` builds modelcheck/memo/assemble.py (an augmenting .pxd; the
# build is keyed by this file too).  A traced state built in C: the records and tuples of the layout,
# each component the Traced of its id.

cdef extern from *:
    """
    /* The part of a traced state that `node` describes: a component index (an int) gives T[k][row[k]],
       the Traced of component k's id (T[k] is a dict that makes it when first asked for); a pair
       (class or None, children) gives a record of that class, or a plain tuple, of its children's
       parts.  A record is allocated by its class's tp_alloc and filled, as tuple.__new__(cls, items)
       does for a tuple subclass, without the intermediate tuple.  New reference, NULL on an error. */
    static PyObject *mc_assemble(PyObject *node, PyObject *row, PyObject *T) {
        PyObject *cls, *children, *out;
        Py_ssize_t n, i;
        if (PyLong_CheckExact(node)) {
            Py_ssize_t k = PyLong_AsSsize_t(node);
            if (k < 0 || k >= PyList_GET_SIZE(T) || k >= PyTuple_GET_SIZE(row)) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_IndexError, "assemble: component out of range");
                return NULL;
            }
            {
                /* A dict's item read directly (PyObject_GetItem's dispatch cost about a third of the
                   assembly); only a value met for the first time goes through it, to its __missing__. */
                PyObject *made = PyList_GET_ITEM(T, k), *id = PyTuple_GET_ITEM(row, k), *x;
                if (PyDict_Check(made)) {
                    x = PyDict_GetItemWithError(made, id);
                    if (x != NULL) { Py_INCREF(x); return x; }
                    if (PyErr_Occurred()) return NULL;
                }
                return PyObject_GetItem(made, id);
            }
        }
        cls = PyTuple_GET_ITEM(node, 0);
        children = PyTuple_GET_ITEM(node, 1);
        n = PyTuple_GET_SIZE(children);
        out = cls == Py_None ? PyTuple_New(n) : ((PyTypeObject *)cls)->tp_alloc((PyTypeObject *)cls, n);
        if (out == NULL) return NULL;
        for (i = 0; i < n; i++) {
            PyObject *x = mc_assemble(PyTuple_GET_ITEM(children, i), row, T);
            if (x == NULL) { Py_DECREF(out); return NULL; }
            PyTuple_SET_ITEM(out, i, x);
        }
        return out;
    }
    """
    object mc_assemble(object node, object row, object T)


cdef class Assembler:
    cdef readonly object shape
