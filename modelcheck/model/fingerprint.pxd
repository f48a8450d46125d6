# Read by Cython when ``modelcheck compile`` builds modelcheck/model/fingerprint.py (an augmenting .pxd;
# the build is keyed by this file too).  The pure-Python definition of the same function is in that
# module (``_fingerprint_py``), and the module checks the two against each other when it loads.

cdef extern from *:
    """
    #include <math.h>
    #include <string.h>

    /* Seeds that keep the kinds of value apart, and xxHash's primes for ordered combination. */
    #define MC_K_INT   0x9E3779B97F4A7C15ULL
    #define MC_K_BIG   0xC2B2AE3D27D4EB4FULL
    #define MC_K_FLOAT 0x165667B19E3779F9ULL
    #define MC_K_TUPLE 0x27D4EB2F165667C5ULL
    #define MC_K_SET   0x85EBCA77C2B2AE63ULL
    #define MC_K_STR   0xD6E8FEB86659FD93ULL
    #define MC_K_NONE  0xA0761D6478BD642FULL
    #define MC_P1 11400714785074694791ULL
    #define MC_P2 14029467366897019727ULL
    #define MC_P5 2870177450012600261ULL
    #define MC_WORTH_A_SLOT 8

    static inline uint64_t mc_mix(uint64_t z) {  /* splitmix64's finaliser: a bijection that avalanches */
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    static inline uint64_t mc_step(uint64_t acc, uint64_t lane) {  /* xxHash's round: a bijection of each input */
        acc += lane * MC_P2;
        acc = (acc << 31) | (acc >> 33);
        return acc * MC_P1;
    }

    /* A pointer-keyed table of container fingerprints for one batch.  It holds a reference to each key,
       so no key can be freed and its address reused while the table lives: an entry is always right,
       because tuples and frozensets (of accepted values) never change. */
    typedef struct { PyObject *key; uint64_t fp; } mc_slot;

    /* A frozenset walked in the batch and its elements' sum, for the sets built from it (see mc_fp_near). */
    #define MC_NEAR_REFS 2
    #define MC_NEAR_MIN 8  /* a smaller set is walked as fast as it is compared */
    typedef struct { PyObject *set; uint64_t sum; } mc_near;

    typedef struct {
        mc_slot *slots; size_t mask; size_t used; int shift;
        mc_near near[MC_NEAR_REFS]; int near_next;
    } mc_cache;

    static int mc_cache_init(mc_cache *c, int bits) {
        c->slots = (mc_slot *)PyMem_Calloc((size_t)1 << bits, sizeof(mc_slot));
        if (!c->slots) { PyErr_NoMemory(); return -1; }
        c->mask = ((size_t)1 << bits) - 1;
        c->used = 0;
        c->shift = 64 - bits;
        return 0;
    }

    static void mc_cache_free(mc_cache *c) {
        size_t i;
        if (!c->slots) return;
        for (i = 0; i <= c->mask; i++)
            Py_XDECREF(c->slots[i].key);
        PyMem_Free(c->slots);
        c->slots = NULL;
        for (i = 0; i < MC_NEAR_REFS; i++)
            Py_CLEAR(c->near[i].set);
    }

    static inline size_t mc_cache_pos(const mc_cache *c, PyObject *k) {
        return (size_t)(((uint64_t)(uintptr_t)k * MC_K_INT) >> c->shift);
    }

    static inline int mc_cache_get(const mc_cache *c, PyObject *k, uint64_t *fp) {
        size_t i = mc_cache_pos(c, k);
        while (c->slots[i].key) {
            if (c->slots[i].key == k) { *fp = c->slots[i].fp; return 1; }
            i = (i + 1) & c->mask;
        }
        return 0;
    }

    static int mc_cache_put(mc_cache *c, PyObject *k, uint64_t fp) {
        size_t i;
        if ((c->used + 1) * 2 > c->mask + 1) {  /* grow to keep probes short */
            mc_cache old = *c;
            size_t j;
            if (mc_cache_init(c, 64 - old.shift + 1) < 0) { *c = old; return -1; }
            for (j = 0; j <= old.mask; j++) {
                if (old.slots[j].key) {
                    i = mc_cache_pos(c, old.slots[j].key);
                    while (c->slots[i].key) i = (i + 1) & c->mask;
                    c->slots[i] = old.slots[j];
                    c->used++;
                }
            }
            PyMem_Free(old.slots);
        }
        i = mc_cache_pos(c, k);
        while (c->slots[i].key) i = (i + 1) & c->mask;
        Py_INCREF(k);
        c->slots[i].key = k;
        c->slots[i].fp = fp;
        c->used++;
        return 0;
    }

    /* Whether t's attribute `name` is base's own (both looked up through the MRO, borrowed). */
    static int mc_same_attr(PyTypeObject *t, PyTypeObject *base, const char *name) {
        PyObject *key = PyUnicode_InternFromString(name), *mine, *theirs;
        int same;
        if (!key) return -1;
        mine = _PyType_Lookup(t, key);
        theirs = _PyType_Lookup(base, key);
        Py_DECREF(key);
        same = mine == theirs;
        return same;
    }

    /* A tuple or frozenset type whose equality is the builtin's (NamedTuples are, an order of their own
       included; a class that defines __eq__, __ne__ or __hash__ is not: its fingerprint would not follow
       its own equality).  A class that defines only an order has its own tp_richcompare: look closer. */
    static inline int mc_plain_type(PyTypeObject *t, PyTypeObject *base) {
        int r;
        if (t == base) return 1;
        if (!PyType_IsSubtype(t, base) || t->tp_hash != base->tp_hash) return 0;
        if (t->tp_richcompare == base->tp_richcompare) return 1;
        r = mc_same_attr(t, base, "__eq__");
        if (r == 1) r = mc_same_attr(t, base, "__ne__");
        if (r < 0) PyErr_Clear();
        return r == 1;
    }

    static int mc_refuse(PyObject *o, const char *why) {
        PyErr_Format(PyExc_TypeError, "a %.100s cannot be part of a state (%s)", Py_TYPE(o)->tp_name, why);
        return -1;
    }

    /* An int leaf is itself (xor a seed, a bijection): the tuple round and the finaliser of what holds it
       mix it, and a frozenset mixes each element before summing. */
    static inline uint64_t mc_small_int(long long v) {
        return (uint64_t)v ^ MC_K_INT;
    }

    /* An int outside [-2**63, 2**63): its magnitude's 64-bit limbs, least significant first. */
    static int mc_big_int(PyObject *o, uint64_t *out) {
        PyObject *mag = PyNumber_Absolute(o);
        size_t nbits, nlimbs, k;
        unsigned char *bytes;
        uint64_t acc;
        int neg;
        if (!mag) return -1;
        neg = PyObject_RichCompareBool(o, mag, Py_NE);
        nbits = _PyLong_NumBits(mag);
        if (neg < 0 || nbits == (size_t)-1) { Py_DECREF(mag); return -1; }
        nlimbs = (nbits + 63) / 64;
        if (nlimbs == 0) nlimbs = 1;
        bytes = (unsigned char *)PyMem_Malloc(nlimbs * 8);
        if (!bytes) { Py_DECREF(mag); PyErr_NoMemory(); return -1; }
        if (_PyLong_AsByteArray((PyLongObject *)mag, bytes, nlimbs * 8, 1, 0) < 0) {
            PyMem_Free(bytes); Py_DECREF(mag); return -1;
        }
        Py_DECREF(mag);
        acc = MC_K_BIG + (uint64_t)neg;
        for (k = 0; k < nlimbs; k++) {
            uint64_t limb = 0;
            int b;
            for (b = 7; b >= 0; b--) limb = (limb << 8) | bytes[k * 8 + b];
            acc = mc_mix(acc ^ limb);
        }
        PyMem_Free(bytes);
        *out = mc_mix(acc ^ (uint64_t)nlimbs);
        return 0;
    }

    static int mc_fp_kept(PyObject *o, uint64_t *out, mc_cache *c, Py_ssize_t *cost, Py_ssize_t worth);
    #define mc_fp(o, out, c, cost) mc_fp_kept((o), (out), (c), (cost), MC_WORTH_A_SLOT)

    /* A frozenset's element: a successor's set is a new object, but its elements are its parent's (a message
       set grown by one message), so each container is kept in the table whatever its size, and found there
       for every other successor of the batch, looked up before the element is read at all. */
    static inline int mc_fp_element(PyObject *key, uint64_t *lane, mc_cache *c, Py_ssize_t *cost) {
        if (c && mc_cache_get(c, key, lane)) {
            *cost += 1;
            return 0;
        }
        return mc_fp_kept(key, lane, c, cost, 0);
    }

    /* A successor's message set is mostly its parent's with one message added: CPython's union copies the
       parent's table slot for slot where it need not grow, then adds the message to an empty slot.  So a
       frozenset whose table holds the same key pointers as that of a set walked earlier in the batch (held
       there, so nothing moved or was freed), but for one slot empty in one of the two, has the elements of
       that set with the one element added or taken away, and its sum follows from that set's without a
       walk.  1 with *sum set, 0 where no recent set is so near, -1 with the exception of the element. */
    static int mc_fp_near(PyObject *o, mc_cache *c, uint64_t *sum, Py_ssize_t *cost) {
        const PySetObject *so = (const PySetObject *)o;
        int k;
        for (k = 1; k <= MC_NEAR_REFS; k++) {
            const mc_near *ref = &c->near[(c->near_next + MC_NEAR_REFS - k) % MC_NEAR_REFS];
            const PySetObject *rs = (const PySetObject *)ref->set;
            const setentry *a, *b;
            Py_ssize_t i, size, at = -1, diff;
            uint64_t base = ref->sum, lane;
            PyObject *elem;
            int added, r;
            if (!rs || rs->mask != so->mask) continue;
            diff = so->used - rs->used;
            if (diff < -1 || diff > 1) continue;
            a = so->table;
            b = rs->table;
            size = so->mask + 1;
            for (i = 0; i < size; i++) {
                if (a[i].key != b[i].key) {
                    if (at >= 0) break;
                    at = i;
                }
            }
            if (i < size) continue;  /* a second slot differs */
            if (at < 0) {  /* the same slots: the same elements */
                *sum = base;
                *cost += so->used;
                return 1;
            }
            /* An active slot has a key and a hash other than -1 (a dummy's); the other side's slot is empty. */
            if (diff == 1 && b[at].key == NULL && a[at].hash != -1) { elem = a[at].key; added = 1; }
            else if (diff == -1 && a[at].key == NULL && b[at].hash != -1) { elem = b[at].key; added = 0; }
            else continue;
            /* Fingerprinting the element may walk sets that replace the references: hold it meanwhile. */
            Py_INCREF(elem);
            r = mc_fp_element(elem, &lane, c, cost);
            Py_DECREF(elem);
            if (r < 0) return -1;
            *sum = added ? base + mc_mix(lane) : base - mc_mix(lane);
            *cost += so->used;
            return 1;
        }
        return 0;
    }

    static void mc_near_put(mc_cache *c, PyObject *o, uint64_t sum) {
        mc_near *slot = &c->near[c->near_next];
        PyObject *old = slot->set;
        Py_INCREF(o);
        slot->set = o;
        slot->sum = sum;
        c->near_next = (c->near_next + 1) % MC_NEAR_REFS;
        Py_XDECREF(old);
    }

    /* cost: the values walked, for deciding what is worth a place in the table. */
    static int mc_fp_container(PyObject *o, uint64_t *out, mc_cache *c, Py_ssize_t *cost) {
        PyTypeObject *t = Py_TYPE(o);
        uint64_t acc, lane;
        Py_ssize_t n, i;
        if (PyTuple_Check(o)) {
            if (!mc_plain_type(t, &PyTuple_Type))
                return mc_refuse(o, "a tuple class that defines its own equality or hash");
            n = PyTuple_GET_SIZE(o);
            acc = MC_K_TUPLE;
            for (i = 0; i < n; i++) {
                if (mc_fp(PyTuple_GET_ITEM(o, i), &lane, c, cost) < 0) return -1;
                acc = mc_step(acc, lane);
            }
            *out = mc_mix(acc + (uint64_t)n * MC_P5);
            return 0;
        }
        if (PyFrozenSet_Check(o)) {
            const setentry *entry;
            Py_ssize_t left;
            if (!mc_plain_type(t, &PyFrozenSet_Type))
                return mc_refuse(o, "a frozenset class that defines its own equality or hash");
            n = PySet_GET_SIZE(o);
            if (c && n >= MC_NEAR_MIN) {
                int near = mc_fp_near(o, c, &acc, cost);
                if (near < 0) return -1;
                if (near) {
                    *out = mc_mix((acc + (uint64_t)n * MC_P5) ^ MC_K_SET);
                    return 0;
                }
            }
            acc = 0;
            /* Order-free: a sum of the elements' fingerprints.  The table is read directly (an active slot has
               a key and a hash other than -1; a frozenset is never changed, so nothing moves meanwhile). */
            for (entry = ((PySetObject *)o)->table, left = n; left > 0; entry++) {
                PyObject *key = entry->key;
                if (key == NULL || entry->hash == -1) continue;
                left--;
                if (mc_fp_element(key, &lane, c, cost) < 0) return -1;
                acc += mc_mix(lane);
            }
            /* Only a walked set is a reference: the sets built from one parent's set all find it. */
            if (c && n >= MC_NEAR_MIN) mc_near_put(c, o, acc);
            *out = mc_mix((acc + (uint64_t)n * MC_P5) ^ MC_K_SET);
            return 0;
        }
        return mc_refuse(o, "only ints, bools, floats, strs, None, tuples (NamedTuples) and frozensets are");
    }

    /* A value's fingerprint; a container that walked at least `worth` values is kept in the batch's table. */
    static int mc_fp_kept(PyObject *o, uint64_t *out, mc_cache *c, Py_ssize_t *cost, Py_ssize_t worth) {
        PyTypeObject *t = Py_TYPE(o);
        Py_ssize_t below = 0;
        int r;
        *cost += 1;
        if (t == &PyLong_Type || t == &PyBool_Type) {
            int overflow;
            long long v;
    #if PY_VERSION_HEX < 0x030C0000
            /* CPython 3.11's ints of at most one 30-bit digit (nearly all a spec holds), read directly. */
            Py_ssize_t size = Py_SIZE(o);
            if (size == 0 || size == 1 || size == -1) {
                *out = mc_small_int(size * (long long)((PyLongObject *)o)->ob_digit[0]);
                return 0;
            }
    #endif
            v = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (overflow) return mc_big_int(o, out);
            if (v == -1 && PyErr_Occurred()) return -1;
            *out = mc_small_int(v);
            return 0;
        }
        if (t == &PyFloat_Type) {
            double d = PyFloat_AS_DOUBLE(o);
            uint64_t bits;
            if (isnan(d)) return mc_refuse(o, "NaN is not equal to itself");
            if (isfinite(d) && d == floor(d)) {  /* equal to an int: fingerprinted as that int */
                PyObject *as_int;
                if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
                    *out = mc_small_int((long long)d);
                    return 0;
                }
                as_int = PyLong_FromDouble(d);
                if (!as_int) return -1;
                r = mc_big_int(as_int, out);
                Py_DECREF(as_int);
                return r;
            }
            memcpy(&bits, &d, 8);
            *out = mc_mix(bits ^ MC_K_FLOAT);
            return 0;
        }
        if (t == &PyUnicode_Type) {
            Py_ssize_t len, k;
            const char *s = PyUnicode_AsUTF8AndSize(o, &len);
            uint64_t acc;
            if (!s) return -1;
            acc = MC_K_STR ^ (uint64_t)len;
            for (k = 0; k < len; k += 8) {
                uint64_t chunk = 0;
                Py_ssize_t b = (len - k < 8 ? len - k : 8) - 1;
                for (; b >= 0; b--) chunk = (chunk << 8) | (unsigned char)s[k + b];
                acc = mc_mix(acc ^ chunk);
            }
            *out = mc_mix(acc + (uint64_t)len);
            return 0;
        }
        if (o == Py_None) {
            *out = mc_mix(MC_K_NONE);
            return 0;
        }
        if (c && mc_cache_get(c, o, out)) return 0;
        if (Py_EnterRecursiveCall(" while fingerprinting a state")) return -1;
        r = mc_fp_container(o, out, c, &below);
        Py_LeaveRecursiveCall();
        *cost += below;
        /* A small container is walked again faster than it is found in a large table. */
        if (r == 0 && c && below >= worth && mc_cache_put(c, o, *out) < 0) return -1;
        return r;
    }

    /* The fingerprint of one value, as a signed 64-bit int. */
    static PyObject *mc_fingerprint(PyObject *o) {
        uint64_t fp;
        Py_ssize_t cost = 0;
        if (mc_fp(o, &fp, NULL, &cost) < 0) return NULL;
        return PyLong_FromLongLong((long long)(fp ? fp : 1));
    }

    /* The fingerprint of a value as a part of a state: unsigned, and 0 left as it is. */
    static PyObject *mc_part_fingerprint(PyObject *o) {
        uint64_t fp;
        Py_ssize_t cost = 0;
        if (mc_fp(o, &fp, NULL, &cost) < 0) return NULL;
        return PyLong_FromUnsignedLongLong(fp);
    }

    /* fingerprint(ts[k]) for k < n into the int64 buffer dest; ts[k] None (a candidate left out) gives 0
       when skip_none.  One table of container fingerprints serves the whole call: successors of one
       parent share most of their parts with it and with each other, and each shared part is walked
       once.  The count written, or -1 with the exception raised for the first value refused. */
    static Py_ssize_t mc_fingerprint_array(PyObject *ts, Py_ssize_t n, PyObject *dest, int skip_none) {
        Py_buffer view;
        mc_cache cache;
        int64_t *out;
        Py_ssize_t k;
        if (n < 0 || n > PyList_GET_SIZE(ts)) {
            PyErr_SetString(PyExc_ValueError, "fingerprint_array: n does not fit the list");
            return -1;
        }
        if (PyObject_GetBuffer(dest, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        if (view.itemsize != 8 || view.len < n * 8) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "fingerprint_array: the output needs n int64 items");
            return -1;
        }
        out = (int64_t *)view.buf;
        /* The table is zeroed when made and scanned when freed, once a call (a parent's successors): it
           starts small, for the few dozen parts most batches hold, and grows with the batch. */
        memset(&cache, 0, sizeof cache);
        if (mc_cache_init(&cache, 8) < 0) { PyBuffer_Release(&view); return -1; }
        for (k = 0; k < n; k++) {
            PyObject *t = PyList_GET_ITEM(ts, k);
            uint64_t fp;
            Py_ssize_t cost = 0;
            if (t == Py_None && skip_none) { out[k] = 0; continue; }
            Py_INCREF(t);
            if (mc_fp(t, &fp, &cache, &cost) < 0) {
                Py_DECREF(t);
                mc_cache_free(&cache);
                PyBuffer_Release(&view);
                return -1;
            }
            Py_DECREF(t);
            out[k] = (int64_t)(fp ? fp : 1);
        }
        mc_cache_free(&cache);
        PyBuffer_Release(&view);
        return n;
    }
    """
    object mc_fingerprint(object o)
    object mc_part_fingerprint(object o)
    Py_ssize_t mc_fingerprint_array(list ts, Py_ssize_t n, object dest, int skip_none) except -1
