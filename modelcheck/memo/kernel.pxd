# Read by Cython when ``modelcheck compile`` builds modelcheck/memo/kernel.py (an augmenting .pxd; the
# build is keyed by this file too).  The C loop of the component-memo search: see kernel.py for the
# arrays, the statuses and why a parent is either expanded whole or not at all.

# The statuses, the order of the arrays (MC_ROWS ..) and the slots of the scalars array (S_I ..): C enums that
# modelcheck compile makes from kernel.py's constants (modelcheck.build.c_enums), their one definition.
cdef extern from "kernel_enums.h":
    pass

cdef extern from *:
    """
    #include <stdint.h>
    #include <stdlib.h>
    #include <string.h>
    #include <stddef.h>
    #include <pthread.h>
    #include <time.h>
    #include <unistd.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* AVX2 where the compiler can target it per function (GCC, Clang on x86-64); used only where the CPU
       has it, asked at run time: the build itself stays portable. */
    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #define MC_AVX2 1
    #include <immintrin.h>
    #endif

    #define MC_GOLDEN 0x9E3779B97F4A7C15ULL

    /* A leaf of the tries: where its successor entries start, how many (a predicate's: its value), and the
       mask of the components its path read.  One 16-byte record, so that one cache line gives all three
       (three arrays took up to three misses a leaf). */
    typedef struct { int32_t start; int32_t count; uint64_t mask; } mc_leaf;

    /* The first slot of `key` in an open-addressing table of `size` slots (any size, not only powers of
       two: the tables grow by half at three quarters full, so they stay at least half full). */
    static inline uint64_t mc_slot(uint64_t key, uint64_t size) {
        return (uint64_t)(((unsigned __int128)(key * MC_GOLDEN) * size) >> 64);
    }

    /* The edge of inner node `code` for the id `v`: its value, or -1 if not learnt.  The edge table's slot
       `h` is `edges[2h]` (the key, 0 if empty) and `edges[2h + 1]` (the value): both in one cache line,
       where a key array and a value array beside it took two misses a step.  The value is the child's
       code in its low 32 bits and, for an inner child, the component that child reads in the high 32
       (a leaf's value is its negative code): a step needs no load from `comp` before the next. */
    static inline int64_t mc_edge(int32_t code, int32_t v, const int64_t *edges, uint64_t esize) {
        int64_t key = (int64_t)(((((uint64_t)(uint32_t)code) << 32) | (uint32_t)v) + 1);
        uint64_t h = mc_slot((uint64_t)key, esize);
        for (;;) {
            /* An acquire load: a helper thread walks while learning adds edges, each written value first
               (mc_pair_put), so a key seen has its value. */
            int64_t kk = __atomic_load_n(edges + 2 * h, __ATOMIC_ACQUIRE);
            if (kk == key) return edges[2 * h + 1];
            if (kk == 0) return -1;
            if (++h == esize) h = 0;
        }
    }

    /* The leaf (-2 - its index) a row reaches from `code`, or -1 at a branch not learnt. */
    static inline int32_t mc_walk(int32_t code, const int32_t *row, const int32_t *comp, const int64_t *edges,
                                  uint64_t esize) {
        int32_t k;
        if (code < 0) return code;
        k = comp[code];
        for (;;) {
            int64_t e = mc_edge(code, row[k], edges, esize);
            code = (int32_t)e;
            if (code < 0) return code;  /* a leaf, or -1 */
            k = (int32_t)(e >> 32);
        }
    }

    static inline int64_t mc_min3(int64_t a, int64_t b, int64_t c) {
        const int64_t m = a < b ? a : b;
        return m < c ? m : c;
    }

    /* The same walk, for a miss: the last inner node passed (-1: the root is not learnt) and how many. */
    static void mc_walk_miss(int32_t code, const int32_t *row, const int32_t *comp, const int64_t *edges,
                             uint64_t esize, int32_t *last, int32_t *depth) {
        *last = -1;
        *depth = 0;
        while (code >= 0) {
            *last = code;
            (*depth)++;
            code = (int32_t)mc_edge(code, row[comp[code]], edges, esize);
        }
    }

    /* A row's fingerprint is its state's own (modelcheck.model.fingerprint): the state's records and
       fixed-length tuples that the layout split are the nodes of a program (FP_PROG, in post-order, the
       state itself last), each the tuple fingerprint of its items: a component's value's fingerprint
       `vfp[id]`, or an inner node's.  A successor recomputes only the nodes above the components its
       step changed, from its parent's node fingerprints: a few tuple rounds rather than the whole state.
       mc_mix, mc_step and the tuple's seeds are fingerprint.pxd's (tests/test_memo_tables.py checks that
       the rows' fingerprints are the states'). */
    #define MC_FP_MAX_NODES 256
    #define MC_FK_TUPLE 0x27D4EB2F165667C5ULL
    #define MC_FP1 11400714785074694791ULL
    #define MC_FP2 14029467366897019727ULL
    #define MC_FP5 2870177450012600261ULL

    /* FP_PROG: n (nodes), then start[0 .. n] (node j's items are kids[start[j] .. start[j+1]]), up[0 .. n-1]
       (the node holding node j, -1 for the state), comp_node[0 .. K-1] (the node holding component k; -1
       where the state is one component, or one a VIEW leaves out), then kids (k >= 0 a component, ~j a node;
       with no node, kids[0] is the component whose fingerprint is the state's). */
    typedef struct { int32_t n; const int32_t *start, *up, *comp_node, *kids; } mc_fp_prog;

    static inline uint64_t mc_fmix(uint64_t z) {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    /* Node j's fingerprint; an inner item's is `cur[i]` where `dirty[i] == gen` (recomputed: items come before
       the node holding them), else `par[i]`. */
    static inline uint64_t mc_fp_node(const mc_fp_prog *fp, const uint64_t *vfp, int32_t j, const int32_t *row,
                                      const uint64_t *cur, const uint64_t *par, const uint32_t *dirty, uint32_t gen) {
        const int32_t *kid = fp->kids + fp->start[j], *end = fp->kids + fp->start[j + 1];
        uint64_t acc = MC_FK_TUPLE, n = (uint64_t)(end - kid);
        for (; kid < end; kid++) {
            const int32_t c = *kid;
            const uint64_t lane = c >= 0 ? vfp[row[c]] : (dirty && dirty[~c] == gen ? cur[~c] : par[~c]);
            acc += lane * MC_FP2;
            acc = (acc << 31) | (acc >> 33);
            acc *= MC_FP1;
        }
        return mc_fmix(acc + n * MC_FP5);
    }

    /* Every node's fingerprint of `row` into `nfp`; the state's (unsigned, 0 not made 1). */
    static inline uint64_t mc_fp_all(const mc_fp_prog *fp, const uint64_t *vfp, const int32_t *row, uint64_t *nfp) {
        int32_t j;
        if (fp->n == 0) return vfp[row[fp->kids[0]]];  /* one component is the state (or its view) */
        for (j = 0; j < fp->n; j++) nfp[j] = mc_fp_node(fp, vfp, j, row, nfp, nfp, NULL, 0);
        return nfp[fp->n - 1];
    }

    /* A bit for each of the leaf slots pl[0 .. n-1] (n <= 64) that is unknown (< 0) or has successors (its
       two low bits 01): the bindings step 1 of mc_memo_expand has work for.  Four slots at a time
       where SSE2 is there: the sign bit of v | (v << 31 & ~(v << 30)) is set exactly then. */
    static inline uint64_t mc_todo(const int32_t *pl, int64_t n) {
        uint64_t todo = 0;
        int64_t b = 0;
    #if defined(__SSE2__)
        for (; b + 4 <= n; b += 4) {
            __m128i v = _mm_loadu_si128((const __m128i *)(pl + b));
            __m128i x = _mm_or_si128(v, _mm_andnot_si128(_mm_slli_epi32(v, 30), _mm_slli_epi32(v, 31)));
            todo |= (uint64_t)_mm_movemask_ps(_mm_castsi128_ps(x)) << b;
        }
    #endif
        for (; b < n; b++) {
            const uint32_t v = (uint32_t)pl[b];
            todo |= (uint64_t)((v | ((v << 31) & ~(v << 30))) >> 31) << b;
        }
        return todo;
    }

    /* Step 3's two loops over a parent's B binding slots `pl` (see there).  mc_gather_masks: each slot's
       mask, `pm[k]`: its leaf's (leaf 0's for an unknown slot, -1) or'ed, for an effect's leaf (low bit
       1), with its guard's union `guard_true[k]`.  mc_keep_leaves: a new state whose step changed the
       components `cm` keeps slot k's leaf where pm[k] and cm share no bit, else -1. */
    static void mc_gather_masks(const int32_t *pl, const mc_leaf *leaves, const uint64_t *guard_true,
                                uint64_t *pm, int64_t B) {
        int64_t k;
        for (k = 0; k < B; k++) {
            const int32_t l = pl[k];
            pm[k] = leaves[(l >> 2) & ~(l >> 31)].mask | (guard_true[k] & -(uint64_t)(l & 1));
        }
    }

    static void mc_keep_leaves(const uint64_t *pm, uint64_t cm, const int32_t *pl, int32_t *ol, int64_t B) {
        int64_t k;
        for (k = 0; k < B; k++)
            ol[k] = (pm[k] & cm) ? -1 : pl[k];
    }

    #ifdef MC_AVX2
    /* The same, four slots at a time: the masks by one gather (a leaf record is 16 bytes, so the index is
       twice the leaf's, in units of 8), the keep test by one 64-bit compare. */
    __attribute__((target("avx2")))
    static void mc_gather_masks_avx2(const int32_t *pl, const mc_leaf *leaves, const uint64_t *guard_true,
                                     uint64_t *pm, int64_t B) {
        const long long *base = (const long long *)((const char *)leaves + offsetof(mc_leaf, mask));
        const __m128i one = _mm_set1_epi32(1);
        int64_t k = 0;
        for (; k + 4 <= B; k += 4) {
            const __m128i l = _mm_loadu_si128((const __m128i *)(pl + k));
            const __m128i idx = _mm_andnot_si128(_mm_srai_epi32(l, 31), _mm_srai_epi32(l, 2));
            __m256i m = _mm256_i32gather_epi64(base, _mm_slli_epi32(idx, 1), 8);
            const __m256i effect = _mm256_sub_epi64(_mm256_setzero_si256(),
                                                    _mm256_cvtepi32_epi64(_mm_and_si128(l, one)));
            m = _mm256_or_si256(m, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(guard_true + k)), effect));
            _mm256_storeu_si256((__m256i *)(pm + k), m);
        }
        mc_gather_masks(pl + k, leaves, guard_true + k, pm + k, B - k);
    }

    __attribute__((target("avx2")))
    static void mc_keep_leaves_avx2(const uint64_t *pm, uint64_t cm, const int32_t *pl, int32_t *ol, int64_t B) {
        const __m256i c = _mm256_set1_epi64x((long long)cm), zero = _mm256_setzero_si256();
        const __m256i low = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
        int64_t k = 0;
        for (; k + 4 <= B; k += 4) {
            const __m256i kept = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_loadu_si256((const __m256i *)(pm + k)), c), zero);
            const __m128i keep = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(kept, low));
            const __m128i l = _mm_loadu_si128((const __m128i *)(pl + k));
            _mm_storeu_si128((__m128i *)(ol + k), _mm_or_si128(_mm_and_si128(keep, l), _mm_xor_si128(keep, _mm_set1_epi32(-1))));
        }
        mc_keep_leaves(pm + k, cm, pl + k, ol + k, B - k);
    }
    #endif

    /* Whether this CPU runs the AVX2 loops. */
    static int mc_cpu_avx2(void) {
    #ifdef MC_AVX2
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") ? 1 : 0;
    #else
        return 0;
    #endif
    }

    /* Put key -> value into the pair table `t` of `nt` slots (the key positive; the table has room). */
    static inline void mc_pair_put(int64_t *t, uint64_t nt, int64_t key, int64_t value) {
        uint64_t h = mc_slot((uint64_t)key, nt);
        while (t[2 * h] && t[2 * h] != key) if (++h == nt) h = 0;
        t[2 * h + 1] = value;  /* the value first: a helper thread that sees the key reads it */
        __atomic_store_n(t + 2 * h, key, __ATOMIC_RELEASE);
    }

    /* 1 if fp was added, 0 if it was there.  The keys are read and written as atomics (plain moves on
       x86-64): helper threads probe the set while the committing thread adds to it. */
    static inline int mc_visit(uint64_t *vkeys, uint64_t vsize, uint64_t fp, int insert) {
        uint64_t h = mc_slot(fp, vsize);
        for (;;) {
            uint64_t kk = __atomic_load_n(vkeys + h, __ATOMIC_RELAXED);
            if (kk == fp) return 0;
            if (kk == 0) { if (insert) __atomic_store_n(vkeys + h, fp, __ATOMIC_RELAXED); return 1; }
            if (++h == vsize) h = 0;
        }
    }

    /* What passes 1 and 2 of a parent read: the tries, the visited set (only probed) and the sizes. */
    typedef struct {
        const int32_t *comp, *root, *entries, *action_of, *guard_of;
        const mc_leaf *leaves;
        const int64_t *edges;
        uint64_t esize, vsize;
        uint64_t *vkeys;
        const uint64_t *vfp;
        mc_fp_prog fpp;
        int64_t K, B, NOWN, constraint_fn, first_check, n_checks, when_true;
        /* With an action constraint: its tree over pair rows (the parent's row, then the successor's). */
        const int32_t *ac_comp;
        const int64_t *ac_edges;
        const mc_leaf *ac_leaves;
        uint64_t ac_esize;
        const int32_t *ac_root;  /* read at each walk: learning sets it in place (the helpers keep this table) */
        int has_ac;
        /* With symmetry (`sym`): in the committer, the caller's orbit function and its cache, and with orbit
           trees the caller's function that learns a branch their walk missed (orbit_learn); in a helper
           (orbit NULL) the orbit trees alone, a parent whose orbits they cannot all say being given back. */
        int sym;
        PyObject *orbit, *orbit_learn;
        int64_t *ocache;
        uint64_t osize;
        /* With symmetry on the tables (o_n values, 0 without): the trees of the spec's signature (o_sorted per
           value: its items, or 1 where it is not split; 0 without a signature) and permute (one per renaming,
           from o_first_perm, in lexicographic order), each signature id's rank (O_RANK, -1 for none), scratch
           for a permuted row and its node fingerprints, and the count of orbits asked for (S_ORBIT_ASKED). */
        const int32_t *o_comp, *o_root, *o_entries;
        const mc_leaf *o_leaves;
        const int64_t *o_edges, *o_rank;
        uint64_t o_esize;
        int64_t o_n, o_sorted, o_first_perm, o_nperms, o_nrank;
        int32_t *o_row;
        uint64_t *o_nfp;
        int64_t *o_asked, *o_miss;  /* S + S_ORBIT_ASKED; S + S_ORBIT_MISS_FN (then its node and depth) */
    } mc_trees;

    #define MC_MAX_ITEMS 16  /* the most items of a split signature: modelcheck.memo.split.MAX_ITEMS */

    /* A thread's scratch for taking orbits: a permuted row (K ids), its node fingerprints, and where a
       missed walk is noted (the committer's S + S_ORBIT_MISS_FN; NULL in a helper, which notes nothing). */
    typedef struct {
        int32_t *row;
        uint64_t *nfp;
        int64_t *miss;
    } mc_oscratch;

    /* Note where orbit tree `f`'s walk of row `r` stopped, for the caller to learn from there; -1. */
    static int mc_orbit_missed(const mc_trees *t, const mc_oscratch *sc, int64_t f, const int32_t *r) {
        int32_t last, depth;
        if (!sc->miss) return -1;
        mc_walk_miss(t->o_root[f], r, t->o_comp, t->o_edges, t->o_esize, &last, &depth);
        sc->miss[0] = f;
        sc->miss[1] = last;
        sc->miss[2] = depth;
        return -1;
    }

    /* The permutation `p` of 0 .. n-1 as its place in lexicographic order. */
    static inline int64_t mc_lehmer(const int64_t *p, int64_t n) {
        int64_t i, j, out = 0;
        for (i = 0; i < n; i++) {
            int64_t smaller = 0;
            for (j = i + 1; j < n; j++) smaller += p[j] < p[i];
            out = out * (n - i) + smaller;
        }
        return out;
    }

    /* The permutation of 0 .. n-1 at place `j` in lexicographic order, into `p` (n <= 8). */
    static inline void mc_unlehmer(int64_t j, int64_t n, int64_t *p) {
        int64_t left[8], i, k, f;
        for (i = 0; i < n; i++) left[i] = i;
        for (i = 0; i < n; i++) {
            for (f = 1, k = 2; k < n - i; k++) f *= k;
            k = j / f;
            j %= f;
            p[i] = left[k];
            for (; k + 1 < n - i; k++) left[k] = left[k + 1];
        }
    }

    /* The fingerprint of row `r` renamed by permutation number `j` (its permute tree's leaf applied to it),
       as `*out` (signed, as the spec's own code compares them): 1; 0 where the leaf is not one state; -1 where
       the walk reached a branch not learnt. */
    static int mc_orbit_renamed(const mc_trees *t, const mc_oscratch *sc, const int32_t *r, int64_t j, int64_t *out) {
        const int32_t code = mc_walk(t->o_root[t->o_first_perm + j], r, t->o_comp, t->o_edges, t->o_esize);
        const mc_leaf *lf;
        const int32_t *e;
        int32_t q, nch;
        if (code == -1) return mc_orbit_missed(t, sc, t->o_first_perm + j, r);
        lf = t->o_leaves + (-2 - code);
        if (lf->count != 1) return 0;
        memcpy(sc->row, r, t->K * sizeof(int32_t));
        e = t->o_entries + lf->start;
        nch = e[0];
        for (q = 0; q < nch; q++) {
            const int32_t v = e[2 + 2 * q];
            sc->row[e[1 + 2 * q]] = v >= 0 ? v : r[~v];
        }
        *out = (int64_t)mc_fp_all(&t->fpp, t->vfp, sc->row, sc->nfp);
        return 1;
    }

    /* Two keys of `ni` item ranks compared as Python compares tuples of equal length: -1, 0 or 1. */
    static inline int mc_key_cmp(const int64_t *a, const int64_t *b, int64_t ni) {
        int64_t i;
        for (i = 0; i < ni; i++)
            if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
        return 0;
    }

    /* The orbit fingerprint of row `r` (own fingerprint `plain`) by the orbit trees, as the spec's own code
       takes it (modelcheck.model.symmetry): 1 with it in `*out`; 0 where the spec's own code must say (a key
       without a rank, a permute leaf that is not one state); -1 where a walk reached a branch not learnt. */
    static int mc_orbit_tables(const mc_trees *t, const mc_oscratch *sc, const int32_t *r, uint64_t plain, uint64_t *out) {
        int64_t n = t->o_n, ni = t->o_sorted, v, i, k, rank[8][MC_MAX_ITEMS], order[8], p[8], j, fp;
        int st;
        if (!ni) {
            int64_t best = (int64_t)plain;
            for (j = 1; j < t->o_nperms; j++) {
                st = mc_orbit_renamed(t, sc, r, j, &fp);
                if (st != 1) return st;
                if (fp < best) best = fp;
            }
            *out = (uint64_t)best;
            return 1;
        }
        if (ni > MC_MAX_ITEMS) return 0;
        for (v = 0; v < n; v++) {  /* value v's key: the ranks of its ni items (one tree each) */
            for (i = 0; i < ni; i++) {
                const int32_t code = mc_walk(t->o_root[v * ni + i], r, t->o_comp, t->o_edges, t->o_esize);
                int32_t id;
                if (code == -1) return mc_orbit_missed(t, sc, v * ni + i, r);
                id = t->o_leaves[-2 - code].count;
                if (id <= 0 || id >= t->o_nrank || t->o_rank[id] < 0) return 0;
                rank[v][i] = t->o_rank[id];
            }
        }
        for (v = 0; v < n; v++) {  /* a stable insertion sort of the values by key, as sorted() orders them */
            int64_t x = v;
            for (k = v; k > 0 && mc_key_cmp(rank[order[k - 1]], rank[x], ni) > 0; k--) order[k] = order[k - 1];
            order[k] = x;
        }
        for (k = 0; k + 1 < n; k++)
            if (mc_key_cmp(rank[order[k]], rank[order[k + 1]], ni) == 0) break;
        if (k + 1 >= n) {  /* no two keys equal: the one renaming that sorts them */
            for (k = 0; k < n; k++) p[order[k]] = k;
            j = mc_lehmer(p, n);
            if (j == 0) { *out = plain; return 1; }
            st = mc_orbit_renamed(t, sc, r, j, &fp);
            if (st == 1) *out = (uint64_t)fp;
            return st;
        }
        {  /* equal keys: the smallest over the renamings that sort them, ties in any order (every renaming
              whose inverse lists the values by key) */
            int64_t best = 0, q[8];
            int found = 0;
            for (j = 0; j < t->o_nperms; j++) {
                mc_unlehmer(j, n, p);
                for (v = 0; v < n; v++) q[p[v]] = v;
                for (k = 0; k + 1 < n && mc_key_cmp(rank[q[k]], rank[q[k + 1]], ni) <= 0; k++) {}
                if (k + 1 < n) continue;
                if (j == 0) {
                    fp = (int64_t)plain;
                } else {
                    st = mc_orbit_renamed(t, sc, r, j, &fp);
                    if (st != 1) return st;
                }
                if (!found || fp < best) best = fp;
                found = 1;
            }
            *out = (uint64_t)best;
            return 1;
        }
    }

    /* Row `r` (`K` ids) as a tuple of ints, or NULL with an error set. */
    static PyObject *mc_row_tuple(const int32_t *r, int64_t K) {
        int64_t k;
        PyObject *row = PyTuple_New(K);
        if (!row) return NULL;
        for (k = 0; k < K; k++) {
            PyObject *v = PyLong_FromLong(r[k]);
            if (!v) { Py_DECREF(row); return NULL; }
            PyTuple_SET_ITEM(row, k, v);
        }
        return row;
    }

    /* A cache of orbit fingerprints: `size` slots of (own fingerprint, orbit fingerprint), then the count
       used.  The orbit of `plain` (not 0), or 0 if it is not there. */
    static inline uint64_t mc_ocache_get(const int64_t *oc, uint64_t size, uint64_t plain) {
        uint64_t h = mc_slot(plain, size);
        for (;;) {
            const int64_t kk = oc[2 * h];
            if ((uint64_t)kk == plain) return (uint64_t)oc[2 * h + 1];
            if (kk == 0) return 0;
            if (++h == size) h = 0;
        }
    }

    /* Keep plain -> o (not there yet) in the cache, emptied first when three quarters full (a memo of a pure
       function). */
    static inline void mc_ocache_put(int64_t *oc, uint64_t size, uint64_t plain, uint64_t o) {
        uint64_t h;
        if ((uint64_t)oc[2 * size] * 4 >= size * 3) memset(oc, 0, (2 * size + 1) * sizeof(int64_t));
        h = mc_slot(plain, size);
        while (oc[2 * h] != 0) if (++h == size) h = 0;
        oc[2 * h] = (int64_t)plain;
        oc[2 * h + 1] = (int64_t)o;
        oc[2 * size]++;
    }

    /* A helper's own orbit cache (the committer's is t->ocache, which no other thread reads) and its count
       of orbits it asked of the orbit trees where that cache missed. */
    typedef struct {
        int64_t *cache;
        uint64_t size;
        int64_t taken;
    } mc_ostate;
    #define MC_HELPER_OCACHE (1 << 18)

    /* The orbit fingerprint of row `r`, whose own fingerprint is `plain` (not 0): from the cache, or from the
       orbit trees, or asked of t->orbit, and cached.  0 where the orbit function failed (it returned None, or
       raised: then its error is set and the expansion ends in an error), or where an orbit tree's walk
       reached a branch not learnt (`*miss` set: the caller learns it and runs the parent again). */
    static uint64_t mc_orbit(const mc_trees *t, const int32_t *r, uint64_t plain, int *miss) {
        int64_t *oc = t->ocache;
        const uint64_t size = t->osize;
        uint64_t o = mc_ocache_get(oc, size, plain);
        int64_t k;
        PyObject *row, *res;
        const mc_oscratch sc = {t->o_row, t->o_nfp, t->o_miss};
        if (o) return o;
        if (t->o_n) {
            int st, again = 2 * (int)t->o_n + 2;
            for (;;) {
                st = mc_orbit_tables(t, &sc, r, plain, &o);
                if (st >= 0 || !t->orbit_learn || again-- <= 0) break;
                /* Learn the branch now, where the caller can put it into these arrays as they are (True);
                   else the loop returns to the caller, which learns it and runs the parent again. */
                row = mc_row_tuple(r, t->K);
                if (!row) return 0;
                res = PyObject_CallFunction(t->orbit_learn, "OLLL", row, (long long)t->o_miss[0],
                                            (long long)t->o_miss[1], (long long)t->o_miss[2]);
                Py_DECREF(row);
                if (!res) return 0;
                k = PyObject_IsTrue(res);
                Py_DECREF(res);
                if (k < 0) return 0;
                if (!k) break;
            }
            (*t->o_asked)++;
            if (st < 0) { *miss = 1; return 0; }
            if (st > 0) goto cache;
        }
        row = mc_row_tuple(r, t->K);
        if (!row) return 0;
        res = PyObject_CallFunction(t->orbit, "OL", row, (long long)(int64_t)plain);
        Py_DECREF(row);
        if (!res) return 0;
        if (res == Py_None) { Py_DECREF(res); return 0; }
        o = (uint64_t)PyLong_AsUnsignedLongLongMask(res);
        Py_DECREF(res);
        if (o == (uint64_t)-1 && PyErr_Occurred()) return 0;
    cache:
        o = o ? o : 1;
        mc_ocache_put(oc, size, plain, o);
        return o;
    }

    /* Where a parent's candidates go: rows, action, fingerprint, changed components, flags, own leaves. */
    typedef struct {
        int32_t *rows, *action, *flag, *own;
        uint64_t *fp, *mask;
        int64_t cap;
    } mc_cands;

    /* The misses noted by the committing thread (the helpers note none: they leave the parent to it). */
    typedef struct {
        int32_t *fn, *parent, *rows, *node, *depth;
        int64_t cap, n;
    } mc_misses;

    enum { MC_P_MISS = -1, MC_P_FULL = -2, MC_P_ORBIT = -3, MC_P_PAIR_MISS = -4 };
    /* MC_P_PAIR_MISS - 2 cc: the action constraint's walk for candidate cc reached a branch not learnt;
       MC_P_PAIR_MISS - 2 cc - 1: an orbit tree's walk for it did. */

    /* Passes 1 and 2 of parent `i` (row `row`, fingerprint `rz`, binding leaves `pl`): its candidates into
       `c`, and the count of them; MC_P_MISS if a walk reached a branch not learnt (noted in `m` when given,
       the walks going on to note the parent's other misses; without `m` the first ends it), MC_P_FULL if
       they outgrow `c`.  `build` 0 only walks the bindings, to note misses (the probe after a miss).
       With symmetry, a helper (`os`, its own orbit cache) takes its candidates' orbits by that cache and the
       orbit trees alone, and gives the parent back (MC_P_MISS) where they cannot say.
       Nothing is written but `pl`, `c` and `*os`, so any thread may run it on a parent it owns. */
    static inline __attribute__((always_inline)) int64_t mc_parent(const mc_trees *t, int64_t i, const int32_t *row, uint64_t rz, int32_t *pl,
                                    const mc_cands *c, int64_t enabled, mc_misses *m, int build, mc_ostate *os) {
        const int64_t K = t->K, B = t->B;
        const int32_t *comp = t->comp, *root = t->root, *guard_of = t->guard_of;
        const mc_leaf *leaves = t->leaves;
        const int64_t *edges = t->edges;
        const uint64_t esize = t->esize;
        int64_t nc = 0, b, base, k, s, cc;
        int missed = 0, have_nodes = 0;
        int32_t code;
        uint64_t pplain = 0;  /* with symmetry: the parent's own fingerprint (rz is its orbit's) */
        /* The parent's node fingerprints, and a successor's: the nodes its changes lie under (`dirty[j] ==
           gen`) are recomputed into `sn`. */
        uint64_t pn[MC_FP_MAX_NODES], sn[MC_FP_MAX_NODES];
        uint32_t dirty[MC_FP_MAX_NODES], gen = 0;
        #define MC_MISSED(f_, r) do { \
            if (!m) return MC_P_MISS; \
            if (m->n < m->cap) { \
                m->fn[m->n] = (int32_t)(f_); m->parent[m->n] = (int32_t)i; \
                memcpy(m->rows + m->n * K, (r), K * sizeof(int32_t)); \
                mc_walk_miss(root[f_], (r), comp, edges, esize, m->node + m->n, m->depth + m->n); \
                m->n++; \
            } \
            missed = 1; \
        } while (0)
        /* 1. Every successor, by the tries.  The parent's leaves `pl` are those its own parent's step left
           valid, or -1; a walk's leaf is written there (a parent expanded again after a miss does not walk
           twice).  A binding's slot holds 4 * (its effect's leaf) + 1, or + 3 where that leaf has no
           successor, or for a split action whose guard fails, 4 * (the guard's leaf).  Most slots hold a
           leaf without successors, known: the bindings left (unknown, or with successors) are found 64 at
           a time as the bits of a mask, without a branch or a leaf's record read per binding.  (With four
           slot values a leaf, an int32 holds 2^29 leaves: 8 GiB of leaf records, more than the memory
           this runs in.) */
        for (base = 0; base < B; base += 64) {
          uint64_t todo = mc_todo(pl + base, B - base < 64 ? B - base : 64);
          for (; todo; todo &= todo - 1) {
            int32_t v, leaf;
            b = base + __builtin_ctzll(todo);
            v = pl[b];
            if (v < 0) {
                if (guard_of[b] >= 0) {  /* a split action: its guard's tree, then its effect's */
                    code = mc_walk(root[guard_of[b]], row, comp, edges, esize);
                    if (code == -1) { MC_MISSED(guard_of[b], row); continue; }
                    if (!leaves[-2 - code].count) { pl[b] = 4 * (-2 - code); continue; }
                }
                code = mc_walk(root[b], row, comp, edges, esize);
                if (code == -1) { MC_MISSED(b, row); continue; }
                pl[b] = v = 4 * (-2 - code) + (leaves[-2 - code].count ? 1 : 3);
            }
            if ((v & 3) != 1)
                continue;  /* the guard fails, or the effect has no successor */
            leaf = v >> 2;
            if (missed || !build) continue;  /* nothing is kept: only misses are noted */
            {
                int32_t cnt = leaves[leaf].count;
                const int32_t *e = t->entries + leaves[leaf].start;
                if (nc + cnt > c->cap) return MC_P_FULL;
                /* A successor's entries are its changes: how many, then (component, entry) each, an entry
                   being an id or ~k for the parent's component k.  Its fingerprint is taken as it is
                   written, and its visited slot prefetched: the walks of the bindings after it hide the
                   miss. */
                if (!have_nodes) {
                    pplain = mc_fp_all(&t->fpp, t->vfp, row, pn);
                    pplain = pplain ? pplain : 1;
                    memset(dirty, 0, (size_t)t->fpp.n * sizeof(uint32_t));
                    have_nodes = 1;
                }
                for (s = 0; s < cnt; s++, nc++) {
                    int32_t *r = c->rows + nc * K;
                    int32_t n_changes = *e++, low = INT32_MAX, j;
                    uint64_t changed = 0, h = t->sym ? pplain : rz;
                    memcpy(r, row, K * sizeof(int32_t));
                    if (++gen == 0) {
                        memset(dirty, 0, sizeof(dirty));
                        gen = 1;
                    }
                    for (; n_changes > 0; n_changes--, e += 2) {
                        int32_t at = e[0], v = e[1], x = v >= 0 ? v : row[~v];
                        if (x == row[at]) continue;  /* an equal value, built anew */
                        changed |= (uint64_t)1 << (at & 63);
                        r[at] = x;
                        /* The nodes above it are to be recomputed. */
                        for (j = t->fpp.comp_node[at]; j >= 0 && dirty[j] != gen; j = t->fpp.up[j]) {
                            dirty[j] = gen;
                            if (j < low) low = j;
                        }
                        h = 0;
                    }
                    if (!h) {
                        if (t->fpp.n == 0) {
                            h = t->vfp[r[t->fpp.kids[0]]];
                        } else if (low == INT32_MAX) {
                            h = rz;  /* only components a VIEW leaves out changed: the parent's fingerprint */
                        } else {
                            for (j = low; j < t->fpp.n; j++)
                                if (dirty[j] == gen) sn[j] = mc_fp_node(&t->fpp, t->vfp, j, r, sn, pn, dirty, gen);
                            h = sn[t->fpp.n - 1];
                        }
                    }
                    c->fp[nc] = h = h ? h : 1;
                    __builtin_prefetch(t->vkeys + mc_slot(h, t->vsize));
                    c->action[nc] = (int32_t)b;  /* the binding: its action is action_of[b] */
                    c->mask[nc] = changed;
                }
            }
          }
        }
        if (missed) return MC_P_MISS;
        /* 2. The constraint, and the checks of those not seen before (still nothing kept).  A candidate's
           own leaves (constraint, checks) are the parent's where its step changed nothing they read; they
           are kept with it, for its own successors. */
        #define MC_OWN_LEAF(slot, fn, r, out) do { \
            int32_t l_ = pl[B + (slot)]; \
            if (l_ < 0 || (leaves[l_].mask & c->mask[cc])) { \
                code = mc_walk(root[fn], (r), comp, edges, esize); \
                l_ = code == -1 ? -1 : -2 - code; \
            } \
            (out) = l_; \
        } while (0)
        for (cc = 0; cc < nc; cc++) {
            const int32_t *r = c->rows + cc * K;
            int32_t *own = c->own + cc * t->NOWN;
            int32_t flag = 0;
            for (k = 0; k < t->NOWN; k++) own[k] = -1;
            if (t->constraint_fn >= 0) {
                MC_OWN_LEAF(0, t->constraint_fn, r, own[0]);
                if (own[0] == -1) { MC_MISSED(t->constraint_fn, r); return MC_P_MISS; }
                if (!leaves[own[0]].count) { c->flag[cc] = 0; continue; }
            }
            if (t->has_ac) {
                int32_t pair[2 * K], ac;
                memcpy(pair, row, K * sizeof(int32_t));
                memcpy(pair + K, r, K * sizeof(int32_t));
                ac = mc_walk(__atomic_load_n(t->ac_root, __ATOMIC_ACQUIRE), pair, t->ac_comp, t->ac_edges, t->ac_esize);
                if (ac == -1) return MC_P_PAIR_MISS - 2 * cc;
                if (!t->ac_leaves[-2 - ac].count) { c->flag[cc] = 0; continue; }
            }
            flag = 1;
            if (t->sym && t->orbit) {
                int miss = 0;
                const uint64_t o = mc_orbit(t, r, c->fp[cc], &miss);
                if (miss) return MC_P_PAIR_MISS - 2 * cc - 1;
                if (!o) return MC_P_ORBIT;
                c->fp[cc] = o;
            } else if (t->sym) {  /* a helper: its own cache, then the trees; no Python */
                uint64_t o = mc_ocache_get(os->cache, os->size, c->fp[cc]);
                if (!o) {
                    int32_t orow[K];
                    uint64_t onfp[MC_FP_MAX_NODES];
                    const mc_oscratch sc = {orow, onfp, NULL};
                    if (mc_orbit_tables(t, &sc, r, c->fp[cc], &o) != 1) return MC_P_MISS;
                    o = o ? o : 1;
                    os->taken++;
                    mc_ocache_put(os->cache, os->size, c->fp[cc], o);
                }
                c->fp[cc] = o;
            }
            if (mc_visit(t->vkeys, t->vsize, c->fp[cc], 0)) {
                flag |= 2;
                for (k = 0; k < t->n_checks; k++) {
                    int32_t *o = own + (t->constraint_fn >= 0) + k;
                    if (!((enabled >> k) & 1)) continue;
                    MC_OWN_LEAF((t->constraint_fn >= 0) + k, t->first_check + k, r, *o);
                    if (*o == -1) { MC_MISSED(t->first_check + k, r); return MC_P_MISS; }
                    if ((leaves[*o].count != 0) == ((t->when_true >> k) & 1))
                        flag |= 4 << k;
                }
            }
            c->flag[cc] = flag;
        }
        #undef MC_OWN_LEAF
        #undef MC_MISSED
        return nc;
    }

    /* A parent's fingerprint: its row's sum, kept with it (1 where not kept: the sum is taken here). */
    static inline uint64_t mc_parent_fp(const mc_trees *t, const uint64_t *row_fp, int64_t i, const int32_t *row) {
        uint64_t rz = row_fp[i], nfp[MC_FP_MAX_NODES];
        if (rz == 1) {
            rz = mc_fp_all(&t->fpp, t->vfp, row, nfp);
            rz = rz ? rz : 1;
        }
        return rz;
    }

    /* ---- Helper threads: passes 1 and 2 of parents ahead of the committing thread ----

       `--workers N` on the tables runs N - 1 helper threads beside the thread that calls mc_memo_expand
       (the committer, which holds the interpreter).  A helper takes a parent of the level ahead of the
       committer, runs passes 1 and 2 on it into its ring (candidates, flags, own leaves; its binding
       leaves into the level's ROW_LEAF, or the ring beyond the bank) and marks it ready; the committer,
       reaching it, takes the ready candidates instead of computing them and runs pass 3 (the visited set,
       counts, outputs) as for its own.  So everything that is decided (what is new, the order, the
       parents, counts, events, misses) is decided by the committer, in the parents' order, exactly as
       with no helper: a helper's work is a pure function of the parent's row and of the tries, which
       only grow, so it stays right however late it is used.  A helper that meets a branch not learnt
       leaves the parent to the committer (which notes and learns it).

       A parent's claim (`state`, one int32 per parent of the level): 0 free, 1 taken (by a helper, or
       by the committer preparing it ahead), 2 given back (a miss, or too many successors), 3 the
       committer's, 16 + h ready in helper h's ring (h = n: the committer's own ring, for the parents it
       prepared ahead while it waited for a helper).
       Helpers keep running while the committer is in Python learning; they are parked only while the
       arrays they read are replaced (a table grown, a new level). */
    enum { MC_ST_FREE = 0, MC_ST_TAKEN = 1, MC_ST_BACK = 2, MC_ST_MINE = 3, MC_ST_READY = 16 };
    #define MC_RING_PARENTS 16384
    #define MC_LEAD 4
    #define MC_AHEAD 2
    #define MC_PUBLISH 16  /* the committer tells the helpers how far it is every MC_PUBLISH parents */

    typedef struct mc_crew mc_crew;
    typedef struct {
        mc_crew *crew;
        int id;
        pthread_t thread;
        int started;
        int parked;               /* under crew->mu */
        int64_t cursor;           /* the next parent it looks at */
        int64_t head, cons_tail;  /* its candidate ring: next slot to write; first slot not consumed (atomic) */
        int64_t cr;               /* candidate slots in the ring */
        int64_t *p_start;         /* per ring parent: its first candidate slot (monotonic), its count */
        int32_t *p_nc, *p_pl;
        mc_cands ring;
        int64_t prepared, given_back;
        mc_ostate orb;            /* with symmetry: its orbit cache, and the orbits it took by the trees */
    } mc_helper;

    struct mc_crew {
        pthread_mutex_t mu;
        pthread_cond_t cv;
        int n;                    /* helpers */
        int only_helpers;         /* tests: the committer takes no parent itself, every one passes a helper */
        int own_ring;             /* tests: the helpers take nothing, and every parent passes the committer's
                                     own ring (h[n]) first */
        int park_req, quit;       /* under mu (park_req also read as an atomic) */
        long pid;                 /* the process that started the threads (none in a forked child) */
        mc_trees t;
        const int32_t *rows;
        const uint64_t *row_fp;
        int32_t *row_leaf, *state;
        int64_t n_parents, leaf_rows, W, enabled, cap;
        int64_t main_at;          /* parents before it are consumed by the committer (atomic) */
        mc_helper h[];
    };

    /* The ring `ring`'s candidates from slot `at` on (rows of K, own leaves of NOWN). */
    static inline mc_cands mc_cands_at(mc_cands ring, int64_t at, int64_t K, int64_t NOWN) {
        ring.rows += at * K; ring.action += at; ring.flag += at; ring.own += at * NOWN; ring.fp += at; ring.mask += at;
        return ring;
    }

    static inline void mc_relax(void) {
    #if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
    #endif
    }

    static void mc_nap(void) {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }

    /* Passes 1 and 2 of parent j into helper h's ring: 1 if ready, 0 if given back. */
    static int mc_helper_prepare(mc_helper *h, int64_t j, int64_t start) {
        mc_crew *cr = h->crew;
        const int64_t K = cr->t.K, W = cr->W, slot = j % MC_RING_PARENTS, at = start % h->cr;
        const int32_t *row = cr->rows + j * K;
        int32_t *pl;
        mc_cands c = mc_cands_at(h->ring, at, K, cr->t.NOWN);
        int64_t nc, k;
        if (j < cr->leaf_rows) {
            pl = cr->row_leaf + j * W;
        } else {
            pl = h->p_pl + slot * W;
            for (k = 0; k < W; k++) pl[k] = -1;
        }
        c.cap = cr->cap;
        nc = mc_parent(&cr->t, j, row, mc_parent_fp(&cr->t, cr->row_fp, j, row), pl, &c, cr->enabled, NULL, 1,
                       &h->orb);
        if (nc < 0) return 0;
        h->p_start[slot] = start;
        h->p_nc[slot] = (int32_t)nc;
        return 1;
    }

    /* Where parent candidates may start in h's ring (room for the most a parent may have, in one piece),
       or -1 if the ring, consumed up to slot `tail`, has no such room. */
    static inline int64_t mc_ring_start(const mc_helper *h, int64_t cap, int64_t tail) {
        int64_t start = h->head;
        if (start % h->cr + cap > h->cr) start += h->cr - start % h->cr;
        return start + cap - tail > h->cr ? -1 : start;
    }

    /* Parent j, just claimed (MC_ST_TAKEN) by h's thread: its passes into h's ring from `start`, then
       marked ready there, or given back. */
    static void mc_prepare_claimed(mc_helper *h, int64_t j, int64_t start) {
        mc_crew *cr = h->crew;
        if (mc_helper_prepare(h, j, start)) {
            h->head = start + h->p_nc[j % MC_RING_PARENTS];
            h->prepared++;
            __atomic_store_n(cr->state + j, MC_ST_READY + h->id, __ATOMIC_RELEASE);
        } else {
            h->given_back++;
            __atomic_store_n(cr->state + j, MC_ST_BACK, __ATOMIC_RELEASE);
        }
    }

    static void *mc_helper_run(void *arg) {
        mc_helper *h = arg;
        mc_crew *cr = h->crew;
        for (;;) {
            int64_t j, main_at, start;
            int32_t st = MC_ST_FREE;
            if (__atomic_load_n(&cr->park_req, __ATOMIC_ACQUIRE)) {
                pthread_mutex_lock(&cr->mu);
                h->parked = 1;
                pthread_cond_broadcast(&cr->cv);
                while (cr->park_req && !cr->quit) pthread_cond_wait(&cr->cv, &cr->mu);
                h->parked = 0;
                if (cr->quit) { pthread_mutex_unlock(&cr->mu); return NULL; }
                pthread_mutex_unlock(&cr->mu);
                continue;
            }
            if (cr->own_ring) { mc_nap(); continue; }  /* tests: the committer's own ring takes every parent */
            main_at = __atomic_load_n(&cr->main_at, __ATOMIC_ACQUIRE);
            j = h->cursor;
            if (j < main_at + (cr->only_helpers ? 0 : MC_LEAD)) j = main_at + (cr->only_helpers ? 0 : MC_LEAD);
            h->cursor = j;
            if (j >= cr->n_parents || j >= main_at + MC_RING_PARENTS) { mc_nap(); continue; }
            start = mc_ring_start(h, cr->cap, __atomic_load_n(&h->cons_tail, __ATOMIC_ACQUIRE));
            if (start < 0) { mc_nap(); continue; }
            h->cursor = j + 1;
            if (__atomic_compare_exchange_n(cr->state + j, &st, MC_ST_TAKEN, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                mc_prepare_claimed(h, j, start);
        }
    }

    /* The committer's progress, for the helpers: parents before `main_at` are consumed, and so are the
       ring slots before `tail_of[h]` (-1: none since the last call).  Stored every MC_PUBLISH parents,
       not at each: each store takes the line from the helper's cache.  Until then a helper sees less room
       than there is, which only holds it back. */
    static inline void mc_publish(mc_crew *cr, int64_t *tail_of, int64_t main_at) {
        int j;
        for (j = 0; j <= cr->n; j++)
            if (tail_of[j] >= 0) {
                __atomic_store_n(&cr->h[j].cons_tail, tail_of[j], __ATOMIC_RELEASE);
                tail_of[j] = -1;
            }
        __atomic_store_n(&cr->main_at, main_at, __ATOMIC_RELEASE);
    }

    /* The committer prepares parent `j` into its own ring (h[n]) as a helper would: 1 if it is ready
       there or given back, 0 if a helper took it first, -1 if the ring has no room. */
    static int mc_own_prepare(mc_crew *cr, int64_t j, const int64_t *tail_of) {
        mc_helper *h = cr->h + cr->n;
        const int64_t start = mc_ring_start(h, cr->cap, tail_of[cr->n] >= 0 ? tail_of[cr->n] : h->cons_tail);
        int32_t st = MC_ST_FREE;
        if (start < 0) return -1;
        if (!__atomic_compare_exchange_n(cr->state + j, &st, MC_ST_TAKEN, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return 0;
        mc_prepare_claimed(h, j, start);
        return 1;
    }

    /* The committer, waiting for parent `i` that a helper is preparing, prepares a later free parent into
       its own ring (h[n]) instead of spinning: where the helpers are the slower side (the committer only
       runs pass 3 on their parents) it would otherwise wait at every parent.  0 if there was nothing to
       take. */
    static int mc_prepare_ahead(mc_crew *cr, int64_t i, const int64_t *tail_of) {
        mc_helper *h = cr->h + cr->n;
        int64_t j = h->cursor > i + 1 ? h->cursor : i + 1;
        const int64_t lim = cr->n_parents < i + MC_RING_PARENTS ? cr->n_parents : i + MC_RING_PARENTS;
        while (j < lim && __atomic_load_n(cr->state + j, __ATOMIC_RELAXED) != MC_ST_FREE) j++;
        h->cursor = j;
        if (j >= lim) return 0;
        if (mc_own_prepare(cr, j, tail_of) < 0) return 0;
        h->cursor = j + 1;
        return 1;
    }

    static void mc_crew_park(mc_crew *cr) {
        int j, all;
        if (cr->pid != (long)getpid()) return;  /* a forked child: no threads here */
        pthread_mutex_lock(&cr->mu);
        __atomic_store_n(&cr->park_req, 1, __ATOMIC_RELEASE);  /* helpers read it without the lock */
        for (;;) {
            for (all = 1, j = 0; j < cr->n; j++) if (cr->h[j].started && !cr->h[j].parked) all = 0;
            if (all) break;
            pthread_cond_wait(&cr->cv, &cr->mu);
        }
        pthread_mutex_unlock(&cr->mu);
    }

    static void mc_crew_release(mc_crew *cr) {
        pthread_mutex_lock(&cr->mu);
        __atomic_store_n(&cr->park_req, 0, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&cr->cv);
        pthread_mutex_unlock(&cr->mu);
    }

    static void mc_crew_free(PyObject *capsule) {
        mc_crew *cr = PyCapsule_GetPointer(capsule, "modelcheck.memo.crew");
        int j;
        if (!cr) return;
        if (cr->pid == (long)getpid()) {
            pthread_mutex_lock(&cr->mu);
            cr->quit = 1;
            __atomic_store_n(&cr->park_req, 1, __ATOMIC_RELEASE);
            pthread_cond_broadcast(&cr->cv);
            pthread_mutex_unlock(&cr->mu);
            for (j = 0; j < cr->n; j++) if (cr->h[j].started) pthread_join(cr->h[j].thread, NULL);
        }
        for (j = 0; j <= cr->n; j++) {
            mc_helper *h = cr->h + j;
            free(h->p_start); free(h->p_nc); free(h->p_pl);
            free(h->ring.rows); free(h->ring.action); free(h->ring.flag); free(h->ring.own);
            free(h->ring.fp); free(h->ring.mask);
            free(h->orb.cache);
        }
        pthread_cond_destroy(&cr->cv);
        pthread_mutex_destroy(&cr->mu);
        free(cr);
    }

    /* A crew of n helper threads, parked until mc_crew_go gives them a level.  `test_mode` bit 1
       (only_helpers) makes the committer wait for a helper to take each parent rather than take it itself,
       so that every parent is prepared by a helper or given back by one; bit 2 (own_ring) keeps the
       helpers idle and sends every parent through the committer's own ring. */
    static PyObject *mc_crew_new(int64_t n, int64_t test_mode) {
        mc_crew *cr;
        PyObject *cap;
        int j;
        if (n < 1 || n > 255) { PyErr_SetString(PyExc_ValueError, "memo kernel: 1 to 255 helpers"); return NULL; }
        cr = calloc(1, sizeof(mc_crew) + (n + 1) * sizeof(mc_helper));  /* h[n]: the committer's own ring */
        if (!cr) return PyErr_NoMemory();
        pthread_mutex_init(&cr->mu, NULL);
        pthread_cond_init(&cr->cv, NULL);
        cr->n = (int)n;
        cr->only_helpers = (test_mode & 1) != 0;
        cr->own_ring = (test_mode & 2) != 0 && !cr->only_helpers;
        cr->park_req = 1;
        cr->pid = (long)getpid();
        cr->h[n].crew = cr;
        cr->h[n].id = (int)n;
        cap = PyCapsule_New(cr, "modelcheck.memo.crew", mc_crew_free);
        if (!cap) { free(cr); return NULL; }
        for (j = 0; j < n; j++) {
            cr->h[j].crew = cr;
            cr->h[j].id = j;
            if (pthread_create(&cr->h[j].thread, NULL, mc_helper_run, cr->h + j) != 0) {
                Py_DECREF(cap);
                PyErr_SetString(PyExc_OSError, "memo kernel: cannot start a helper thread");
                return NULL;
            }
            cr->h[j].started = 1;
        }
        mc_crew_park(cr);
        return cap;
    }

    static mc_crew *mc_crew_of(PyObject *capsule) {
        if (capsule == Py_None) return NULL;
        return PyCapsule_GetPointer(capsule, "modelcheck.memo.crew");
    }

    static int mc_read_table(PyObject *table, void **p, Py_ssize_t *len) {
        Py_buffer tv;
        int j;
        if (PyObject_GetBuffer(table, &tv, PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (tv.itemsize != 8 || tv.len < 2 * MC_N_ARRAYS * 8) {
            PyBuffer_Release(&tv);
            PyErr_SetString(PyExc_ValueError, "memo kernel: wrong array table");
            return -1;
        }
        for (j = 0; j < MC_N_ARRAYS; j++) {
            p[j] = (void *)(intptr_t)((const int64_t *)tv.buf)[j];
            len[j] = (Py_ssize_t)((const int64_t *)tv.buf)[MC_N_ARRAYS + j];
        }
        PyBuffer_Release(&tv);
        return 0;
    }

    static void mc_trees_of(mc_trees *t, void **p, Py_ssize_t *len, const int64_t *S) {
        t->comp = p[MC_COMP]; t->root = p[MC_ROOT]; t->entries = p[MC_ENTRIES];
        t->action_of = p[MC_ACTION_OF]; t->guard_of = p[MC_GUARD_OF];
        t->leaves = p[MC_LEAVES]; t->edges = p[MC_EDGES];
        t->esize = (uint64_t)len[MC_EDGES] / 2;
        t->vkeys = p[MC_VKEYS]; t->vsize = (uint64_t)len[MC_VKEYS];
        t->vfp = p[MC_VFP];
        t->sym = 0;
        t->orbit = NULL;
        t->orbit_learn = NULL;
        t->has_ac = S[S_ACTION_CONSTRAINT] != 0;
        t->ac_comp = p[MC_AC_COMP]; t->ac_edges = p[MC_AC_EDGES]; t->ac_leaves = p[MC_AC_LEAVES];
        t->ac_esize = (uint64_t)len[MC_AC_EDGES] / 2;
        t->ac_root = p[MC_AC_ROOT];
        t->ocache = p[MC_ORBIT_CACHE];
        t->osize = len[MC_ORBIT_CACHE] > 2 ? (uint64_t)(len[MC_ORBIT_CACHE] - 1) / 2 : 0;
        t->o_n = S[S_ORBIT_TREES];
        t->o_sorted = S[S_ORBIT_SORTED]; t->o_first_perm = S[S_ORBIT_FIRST_PERM]; t->o_nperms = S[S_ORBIT_NPERMS];
        t->o_comp = p[MC_O_COMP]; t->o_root = p[MC_O_ROOT]; t->o_entries = p[MC_O_ENTRIES];
        t->o_leaves = p[MC_O_LEAVES]; t->o_edges = p[MC_O_EDGES]; t->o_esize = (uint64_t)len[MC_O_EDGES] / 2;
        t->o_rank = p[MC_O_RANK]; t->o_nrank = len[MC_O_RANK];
        t->o_row = p[MC_O_ROW]; t->o_nfp = p[MC_O_NFP];
        t->o_asked = NULL;
        t->o_miss = NULL;
        {
            const int32_t *prog = p[MC_FP_PROG];
            t->fpp.n = prog[0];
            t->fpp.start = prog + 1;
            t->fpp.up = t->fpp.start + t->fpp.n + 1;
            t->fpp.comp_node = t->fpp.up + t->fpp.n;
            t->fpp.kids = t->fpp.comp_node + S[S_K];
        }
        t->K = S[S_K]; t->B = S[S_B]; t->NOWN = S[S_W] - S[S_B];
        t->constraint_fn = S[S_CONSTRAINT_FN]; t->first_check = S[S_FIRST_CHECK]; t->n_checks = S[S_N_CHECKS];
        t->when_true = S[S_CHECK_WHEN_TRUE];
    }

    /* Park the crew (the caller is about to replace arrays they read, or to start a level). */
    static int64_t mc_crew_stop(PyObject *capsule) {
        mc_crew *cr = mc_crew_of(capsule);
        if (!cr) return PyErr_Occurred() ? -1 : 0;
        mc_crew_park(cr);
        return 0;
    }

    /* Give the parked crew the arrays of `table` and `scalars` and let it run.  `state` is the level's
       claims (int32, one per parent, zero at the level's start); `new_level` 1 starts the rings afresh
       (their candidates and the parents' claims belong to the level). */
    static int64_t mc_crew_go(PyObject *capsule, PyObject *table, PyObject *scalars, PyObject *state,
                              int64_t new_level) {
        mc_crew *cr = mc_crew_of(capsule);
        void *p[MC_N_ARRAYS];
        Py_ssize_t len[MC_N_ARRAYS];
        Py_buffer sv, st;
        const int64_t *S;
        int j;
        if (!cr) return PyErr_Occurred() ? -1 : 0;
        if (cr->pid != (long)getpid()) return 0;
        if (mc_read_table(table, p, len) < 0) return -1;
        if (PyObject_GetBuffer(scalars, &sv, PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (PyObject_GetBuffer(state, &st, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&sv); return -1; }
        if (sv.itemsize != 8 || sv.len < S_N_SCALARS * 8 || st.itemsize != 4) {
            PyBuffer_Release(&sv); PyBuffer_Release(&st);
            PyErr_SetString(PyExc_ValueError, "memo kernel: wrong scalars or claims");
            return -1;
        }
        S = sv.buf;
        mc_crew_park(cr);
        mc_trees_of(&cr->t, p, len, S);
        cr->t.sym = cr->t.o_n > 0;  /* with symmetry the caller gives helpers a level only where the trees stand */
        for (j = 0; cr->t.sym && j <= cr->n; j++) {  /* each helper's (and the committer's ring's) orbit cache */
            mc_helper *h = cr->h + j;
            if (h->orb.cache) continue;
            h->orb.cache = calloc(2 * MC_HELPER_OCACHE + 1, sizeof(int64_t));
            if (!h->orb.cache) {
                PyBuffer_Release(&sv); PyBuffer_Release(&st);
                PyErr_NoMemory();
                return -1;
            }
            h->orb.size = MC_HELPER_OCACHE;
        }
        cr->rows = p[MC_ROWS];
        cr->row_fp = p[MC_ROW_FP];
        cr->row_leaf = p[MC_ROW_LEAF];
        cr->leaf_rows = S[S_LEAF_ROWS];
        cr->W = S[S_W];
        cr->enabled = S[S_CHECK_ENABLED];
        cr->state = st.buf;
        cr->n_parents = st.len / 4;
        if (new_level) {
            const int64_t cap = len[MC_CAND_ACTION], K = S[S_K], NOWN = S[S_W] - S[S_B], W = S[S_W];
            const int64_t slots = 4 * cap > 65536 ? 4 * cap : 65536;
            cr->main_at = S[S_I];
            cr->cap = cap;
            for (j = 0; j <= cr->n; j++) {
                mc_helper *h = cr->h + j;
                if (h->cr < slots || !h->p_start || !h->p_pl) {
                    free(h->p_start); free(h->p_nc); free(h->p_pl);
                    free(h->ring.rows); free(h->ring.action); free(h->ring.flag); free(h->ring.own);
                    free(h->ring.fp); free(h->ring.mask);
                    h->p_start = malloc(MC_RING_PARENTS * sizeof(int64_t));
                    h->p_nc = malloc(MC_RING_PARENTS * sizeof(int32_t));
                    h->p_pl = malloc(MC_RING_PARENTS * (W > 0 ? W : 1) * sizeof(int32_t));
                    h->ring.rows = malloc(slots * (K > 0 ? K : 1) * sizeof(int32_t));
                    h->ring.action = malloc(slots * sizeof(int32_t));
                    h->ring.flag = malloc(slots * sizeof(int32_t));
                    h->ring.own = malloc(slots * (NOWN > 0 ? NOWN : 1) * sizeof(int32_t));
                    h->ring.fp = malloc(slots * sizeof(uint64_t));
                    h->ring.mask = malloc(slots * sizeof(uint64_t));
                    h->cr = slots;
                    if (!h->p_start || !h->p_nc || !h->p_pl || !h->ring.rows || !h->ring.action || !h->ring.flag
                        || !h->ring.own || !h->ring.fp || !h->ring.mask) {
                        h->cr = 0;
                        PyBuffer_Release(&sv); PyBuffer_Release(&st);
                        PyErr_NoMemory();
                        return -1;
                    }
                }
                h->cursor = S[S_I];
                h->head = h->cons_tail = 0;
            }
        }
        PyBuffer_Release(&sv);
        PyBuffer_Release(&st);
        if (cr->n_parents > 0 && cr->cap > 0) mc_crew_release(cr);
        return 0;
    }

    /* Parents the helpers prepared (what 0) and gave back (1) so far; 2 and 3: the same for the committer's
       own ring; 4: orbits the helpers and that ring took by the orbit trees.  For tests and the run's
       report. */
    static int64_t mc_crew_count(PyObject *capsule, int64_t what) {
        mc_crew *cr = mc_crew_of(capsule);
        int64_t n = 0;
        int j;
        if (!cr) return PyErr_Occurred() ? -1 : 0;
        if (what == 4) {
            for (j = 0; j <= cr->n; j++) n += cr->h[j].orb.taken;
            return n;
        }
        if (what >= 2)  /* the committer's own ring */
            return what == 2 ? cr->h[cr->n].prepared : cr->h[cr->n].given_back;
        for (j = 0; j < cr->n; j++) n += what ? cr->h[j].given_back : cr->h[j].prepared;
        return n;
    }

    /* Expand parents S_I .. S_HI of `rows`: see kernel.py.  Returns the status (also in S_STATUS). */
    /* `table` is int64 [2][MC_N_ARRAYS]: each array's data address, then its length in items.  The
       caller keeps the arrays alive and C-contiguous of the documented types, and rebuilds the table
       whenever it replaces one (one buffer here, not one per array: a call costs little).  `crew` is
       None, or helper threads (mc_crew_new) given this table by mc_crew_go. */
    static int64_t mc_memo_expand(PyObject *table, PyObject *scalars, PyObject *crew_obj, PyObject *orbit) {
        Py_buffer sv;
        void *p[MC_N_ARRAYS];
        Py_ssize_t len[MC_N_ARRAYS];
        int64_t *S, status = MC_DONE;
        int j;
        mc_crew *crew = mc_crew_of(crew_obj);
        if (!crew && PyErr_Occurred()) return -1;
        if (crew && (crew->pid != (long)getpid() || !crew->state)) crew = NULL;
        if (PyObject_GetBuffer(scalars, &sv, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
            return -1;
        if (sv.itemsize != 8 || sv.len < S_N_SCALARS * 8) {
            PyBuffer_Release(&sv);
            PyErr_SetString(PyExc_ValueError, "memo kernel: wrong scalars");
            return -1;
        }
        if (mc_read_table(table, p, len) < 0) { PyBuffer_Release(&sv); return -1; }
        S = (int64_t *)sv.buf;
        {
            mc_trees t;
            const int32_t *rows = p[MC_ROWS];
            const mc_leaf *leaves = p[MC_LEAVES];
            const int32_t *guard_of = p[MC_GUARD_OF];
            const uint64_t *true_mask = p[MC_TRUE_MASK];
            int32_t *row_leaf = p[MC_ROW_LEAF];
            const uint64_t *row_fp = p[MC_ROW_FP];
            int32_t *out_leaf = p[MC_OUT_LEAF], *scratch = p[MC_SCRATCH_LEAF];
            const int64_t W = S[S_W], leaf_rows = S[S_LEAF_ROWS];
            /* Leaves are kept for the first states of a level only (the bank's rows): past them, a
               parent's leaves are in `scratch`, all unknown. */
            const int64_t out_leaf_rows = W ? len[MC_OUT_LEAF] / W : 0;
            int32_t *out_rows = p[MC_OUT_ROWS], *out_parent = p[MC_OUT_PARENT], *out_action = p[MC_OUT_ACTION];
            uint64_t *out_fp = p[MC_OUT_FP];
            int64_t *gen_by_action = p[MC_GEN_BY_ACTION], *new_by_action = p[MC_NEW_BY_ACTION];
            int64_t K, B, NOWN, hi = S[S_HI];
            const int64_t ocap = len[MC_OUT_PARENT], probe = S[S_PROBE];
            mc_cands mine;
            mc_misses m;
            const int avx2 = S[S_SIMD] && mc_cpu_avx2();
            int64_t i = S[S_I], n_out = S[S_N_OUT], vcount = S[S_VCOUNT], n_edges = S[S_N_EDGES];
            const int record = S[S_RECORD] != 0;
            int32_t *edge_src = p[MC_EDGE_SRC], *edge_label = p[MC_EDGE_LABEL];
            uint64_t *edge_dst = p[MC_EDGE_DST];
            int64_t *out_checks = p[MC_OUT_CHECKS];
            /* With S_EDGE_ROWS each edge also keeps its target's row and its index among the parent's
               successors (the step properties' trees read them). */
            const int edge_rows_too = S[S_EDGE_ROWS] != 0;
            int32_t *edge_rows = p[MC_EDGE_ROWS], *edge_step = p[MC_EDGE_STEP];
            const int64_t ecap = !edge_rows_too ? len[MC_EDGE_SRC]
                : mc_min3(len[MC_EDGE_SRC], S[S_K] ? len[MC_EDGE_ROWS] / S[S_K] : len[MC_EDGE_SRC], len[MC_EDGE_STEP]);
            int64_t first_miss = -1, end = hi;
            uint64_t *guard_true, *pm;
            int64_t *tail_of;  /* per helper, its ring's first slot not consumed, until published */
            mc_trees_of(&t, p, len, S);
            if (orbit != Py_None) {
                if (!t.osize || (crew && crew->t.sym != (t.o_n > 0))) {
                    PyBuffer_Release(&sv);
                    PyErr_SetString(PyExc_ValueError, "memo kernel: orbits need an orbit cache, and helper threads "
                                                      "the orbit trees");
                    return -1;
                }
                t.sym = 1;
                if (PyTuple_Check(orbit) && PyTuple_GET_SIZE(orbit) == 2) {
                    t.orbit = PyTuple_GET_ITEM(orbit, 0);
                    t.orbit_learn = PyTuple_GET_ITEM(orbit, 1);
                    if (t.orbit_learn == Py_None) t.orbit_learn = NULL;
                } else {
                    t.orbit = orbit;
                }
                t.o_asked = S + S_ORBIT_ASKED;
                t.o_miss = S + S_ORBIT_MISS_FN;
                if (t.o_n && (t.o_n > 8 || len[MC_O_ROW] < t.K || len[MC_O_NFP] < t.fpp.n
                              || len[MC_O_ROOT] < t.o_first_perm + t.o_nperms)) {
                    PyBuffer_Release(&sv);
                    PyErr_SetString(PyExc_ValueError, "memo kernel: orbit trees with wrong scratch or roots");
                    return -1;
                }
            } else {
                t.o_n = 0;
            }
            K = t.K; B = t.B; NOWN = t.NOWN;
            mine.rows = p[MC_CAND]; mine.action = p[MC_CAND_ACTION]; mine.fp = p[MC_CAND_FP];
            mine.flag = p[MC_CAND_FLAG]; mine.mask = p[MC_CAND_MASK]; mine.own = p[MC_CAND_OWN];
            mine.cap = len[MC_CAND_ACTION];
            m.fn = p[MC_MISS_FN]; m.parent = p[MC_MISS_PARENT]; m.rows = p[MC_MISS_ROWS];
            m.node = p[MC_MISS_NODE]; m.depth = p[MC_MISS_DEPTH]; m.cap = len[MC_MISS_FN]; m.n = 0;
            /* Each binding's guard's true_mask (0 without a guard), for step 3: learning only adds to them,
               between calls. */
            guard_true = malloc((2 * (B > 0 ? B : 1) + (crew ? crew->n + 1 : 0)) * sizeof(uint64_t));
            if (!guard_true) {
                PyBuffer_Release(&sv);
                PyErr_NoMemory();
                return -1;
            }
            pm = guard_true + (B > 0 ? B : 1);  /* step 3's masks of one parent's slots */
            tail_of = (int64_t *)(pm + (B > 0 ? B : 1));
            for (j = 0; crew && j <= crew->n; j++) tail_of[j] = -1;
            for (j = 0; j < B; j++)
                guard_true[j] = guard_of[j] >= 0 ? true_mask[guard_of[j]] : 0;
            /* A walk that reaches a branch not learnt yet is noted (function, row); from the first such
               parent on nothing is kept, and up to `probe` more parents are only walked, to note their
               misses too, so that the caller learns many branches per call. */
            for (; i < end; i++) {
                const int32_t *row = rows + i * K;
                int32_t *pl = i < leaf_rows ? row_leaf + i * W : scratch;
                mc_cands c = mine;
                mc_helper *from = NULL;
                int64_t nc, cidx, k;
                int fired = 0, have_pm = 0;
                if (crew) {
                    /* The parent's claim: take it if free; wait for a helper that has it (a parent's passes
                       take microseconds); use its candidates if ready. */
                    int32_t st = __atomic_load_n(crew->state + i, __ATOMIC_ACQUIRE);
                    /* (Tests.)  Wait for a helper, unless they were parked from a call back of this loop
                       (learning that renumbers what they read): then this thread takes the parent. */
                    if (st == MC_ST_FREE && crew->only_helpers && !__atomic_load_n(&crew->park_req, __ATOMIC_ACQUIRE)) {
                        if (first_miss >= 0) continue;
                        mc_publish(crew, tail_of, i);  /* the helper may be waiting for room in its ring */
                        while (st == MC_ST_FREE && !__atomic_load_n(&crew->park_req, __ATOMIC_ACQUIRE)) {
                            mc_relax();
                            st = __atomic_load_n(crew->state + i, __ATOMIC_ACQUIRE);
                        }
                    }
                    if (st == MC_ST_FREE && crew->own_ring && first_miss < 0) {
                        mc_publish(crew, tail_of, i);
                        if (mc_own_prepare(crew, i, tail_of) >= 0) st = __atomic_load_n(crew->state + i, __ATOMIC_ACQUIRE);
                    }
                    if (st == MC_ST_FREE && __atomic_compare_exchange_n(crew->state + i, &st, MC_ST_MINE, 0,
                                                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                        st = MC_ST_MINE;
                    if (st == MC_ST_TAKEN && first_miss >= 0) continue;  /* probing: not worth the wait */
                    if (st == MC_ST_TAKEN) mc_publish(crew, tail_of, i);
                    while (st == MC_ST_TAKEN) {
                        if (crew->only_helpers || !mc_prepare_ahead(crew, i, tail_of)) mc_relax();
                        st = __atomic_load_n(crew->state + i, __ATOMIC_ACQUIRE);
                    }
                    if (st >= MC_ST_READY) {
                        const int64_t slot = i % MC_RING_PARENTS;
                        if (first_miss >= 0) continue;  /* ready: nothing of it is missing */
                        from = crew->h + (st - MC_ST_READY);
                        c = mc_cands_at(from->ring, from->p_start[slot] % from->cr, K, NOWN);
                        nc = from->p_nc[slot];
                        if (i >= leaf_rows) pl = from->p_pl + slot * W;
                        /* The helper prefetched the candidates' visited slots into its own core's cache:
                           those of a parent two ahead are fetched here, so that its probes hit. */
                        if (i + MC_AHEAD < hi) {
                            const int32_t sa = __atomic_load_n(crew->state + i + MC_AHEAD, __ATOMIC_ACQUIRE);
                            if (sa >= MC_ST_READY) {
                                const mc_helper *ha = crew->h + (sa - MC_ST_READY);
                                const int64_t sl = (i + MC_AHEAD) % MC_RING_PARENTS, na = ha->p_nc[sl];
                                const uint64_t *fa = ha->ring.fp + ha->p_start[sl] % ha->cr;
                                for (k = 0; k < na; k++) __builtin_prefetch(t.vkeys + mc_slot(fa[k], t.vsize));
                            }
                        }
                        goto keep;
                    }
                }
                if (pl == scratch)
                    for (k = 0; k < W; k++) scratch[k] = -1;
                nc = mc_parent(&t, i, row, mc_parent_fp(&t, row_fp, i, row), pl, &c, S[S_CHECK_ENABLED], &m,
                               first_miss < 0, NULL);
                if (nc == MC_P_FULL) { status = MC_GROW_CAND; goto stop; }
                if (nc == MC_P_ORBIT) { status = MC_ORBIT_FAILED; goto stop; }
                if (nc <= MC_P_PAIR_MISS) {
                    if (first_miss >= 0) continue;  /* probing: its own turn learns it */
                    S[S_EV_PARENT] = i;
                    S[S_EV_CAND] = (MC_P_PAIR_MISS - nc) >> 1;
                    status = (MC_P_PAIR_MISS - nc) & 1 ? MC_ORBIT_MISS : MC_PAIR_MISS;
                    goto stop;
                }
                if (nc == MC_P_MISS || first_miss >= 0) {
                    if (first_miss < 0) {
                        first_miss = i;
                        end = i + 1 + probe < hi ? i + 1 + probe : hi;
                    }
                    if (m.n >= m.cap) break;
                    continue;
                }
            keep:
                if ((uint64_t)(vcount + nc) * 4 > t.vsize * 3) { status = MC_GROW_VISITED; goto stop; }
                if (n_out + nc > ocap) { status = MC_GROW_OUT; goto stop; }
                if (record && n_edges + nc > ecap) { status = MC_GROW_EDGES; goto stop; }
                /* 3. Keep the parent's expansion.  Recording (liveness), every transition inside the model
                   but a stuttering one is an edge (parent rank, target, binding).  Each new state keeps its
                   checks' bits (its liveness predicates among them; Spark's executors ship them). */
                S[S_GENERATED] += nc;
                if (record) {
                    const uint64_t prz = mc_parent_fp(&t, row_fp, i, row);
                    for (cidx = 0; cidx < nc; cidx++) {
                        if (!(c.flag[cidx] & 1) || c.fp[cidx] == prz) continue;
                        edge_src[n_edges] = (int32_t)i;
                        edge_dst[n_edges] = c.fp[cidx];
                        edge_label[n_edges] = c.action[cidx];
                        if (edge_rows_too) {
                            memcpy(edge_rows + n_edges * K, c.rows + cidx * K, K * sizeof(int32_t));
                            edge_step[n_edges] = (int32_t)cidx;
                        }
                        n_edges++;
                    }
                }
                for (cidx = 0; cidx < nc; cidx++) {
                    gen_by_action[t.action_of[c.action[cidx]]]++;
                    if ((c.flag[cidx] & 3) == 3 && mc_visit(t.vkeys, t.vsize, c.fp[cidx], 1)) {
                        vcount++;
                        memcpy(out_rows + n_out * K, c.rows + cidx * K, K * sizeof(int32_t));
                        if (n_out < out_leaf_rows) {
                            int32_t *ol = out_leaf + n_out * W;
                            const uint64_t cm = c.mask[cidx];
                            /* An effect's leaf stands while its path and the paths of every state its
                               guard ever held on (guard_true, by binding) are unchanged.  Those masks
                               are gathered once per parent (pm), at its first new state, so that each
                               new state only tests its changes against them.  Without a branch: every
                               slot is known here (step 1 walked each, or noted a miss and the parent
                               is not kept), but an unknown one (-1) would read leaf 0 and stay -1. */
                            if (!have_pm) {
                            #ifdef MC_AVX2
                                if (avx2) mc_gather_masks_avx2(pl, leaves, guard_true, pm, B); else
                            #endif
                                mc_gather_masks(pl, leaves, guard_true, pm, B);
                                have_pm = 1;
                            }
                        #ifdef MC_AVX2
                            if (avx2) mc_keep_leaves_avx2(pm, cm, pl, ol, B); else
                        #endif
                            mc_keep_leaves(pm, cm, pl, ol, B);
                            memcpy(ol + B, c.own + cidx * NOWN, NOWN * sizeof(int32_t));
                        }
                        out_parent[n_out] = (int32_t)i;
                        out_action[n_out] = t.action_of[c.action[cidx]];
                        out_fp[n_out] = c.fp[cidx];
                        out_checks[n_out] = (uint32_t)c.flag[cidx] >> 2;
                        new_by_action[t.action_of[c.action[cidx]]]++;
                        n_out++;
                        if ((c.flag[cidx] >> 2) & S[S_CHECK_REPORT])
                            fired = 1;
                    }
                }
                if (fired || (nc == 0 && S[S_DEADLOCK])) {
                    /* The parent's candidates and flags are in the scratch arrays for the caller (copied
                       there from a helper's ring). */
                    if (from) {
                        memcpy(mine.rows, c.rows, nc * K * sizeof(int32_t));
                        memcpy(mine.action, c.action, nc * sizeof(int32_t));
                        memcpy(mine.flag, c.flag, nc * sizeof(int32_t));
                        memcpy(mine.own, c.own, nc * NOWN * sizeof(int32_t));
                        memcpy(mine.fp, c.fp, nc * sizeof(uint64_t));
                        memcpy(mine.mask, c.mask, nc * sizeof(uint64_t));
                    }
                    S[S_EV_PARENT] = i;
                    S[S_EV_CAND] = nc;
                    S[S_EV_MASK] = fired;
                    S[S_EV_DEADLOCK] = nc == 0 && S[S_DEADLOCK];
                    status = MC_EVENT;
                }
                if (crew) {
                    if (from)
                        tail_of[from - crew->h] = from->p_start[i % MC_RING_PARENTS] + nc;
                    if (!((i + 1) & (MC_PUBLISH - 1)))
                        mc_publish(crew, tail_of, i + 1);
                }
                if (status == MC_EVENT) {
                    i++;
                    goto stop;
                }
            }
            if (first_miss >= 0) {
                i = first_miss;
                status = MC_MISS;
            }
            S[S_N_MISS] = m.n;
        stop:
            if (crew) mc_publish(crew, tail_of, i);
            S[S_I] = i;
            S[S_N_OUT] = n_out;
            S[S_N_EDGES] = n_edges;
            S[S_VCOUNT] = vcount;
            S[S_STATUS] = status;
            free(guard_true);
        }
        PyBuffer_Release(&sv);
        return status == MC_ORBIT_FAILED && PyErr_Occurred() ? -1 : status;
    }

    /* Re-insert the non-zero keys of `old` into the empty, larger table `new` (the visited set). */
    static int64_t mc_rehash(PyObject *old, PyObject *new) {
        Py_buffer a, b;
        int64_t n = 0;
        if (PyObject_GetBuffer(old, &a, PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (PyObject_GetBuffer(new, &b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&a); return -1; }
        {
            const uint64_t *ok = a.buf;
            uint64_t *nk = b.buf;
            Py_ssize_t na = a.len / 8, nb = b.len / 8, j;
            for (j = 0; j < na; j++) {
                uint64_t key = ok[j], h;
                if (!key) continue;
                h = mc_slot(key, (uint64_t)nb);
                while (nk[h]) if (++h == (uint64_t)nb) h = 0;
                nk[h] = key;
                n++;
            }
        }
        PyBuffer_Release(&a); PyBuffer_Release(&b);
        return n;
    }

    /* out[j] = the code row j of `rows` (n x k int32) reaches from `root` in the tree of `comp` and `edges`. */
    static int64_t mc_walk_rows(int64_t root, PyObject *comp, PyObject *edges, PyObject *rows, PyObject *out) {
        Py_buffer cv, ev, rv, ov;
        int64_t j, n, k;
        int ok = 0;
        if (PyObject_GetBuffer(comp, &cv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
        if (PyObject_GetBuffer(edges, &ev, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) { PyBuffer_Release(&cv); return -1; }
        if (PyObject_GetBuffer(rows, &rv, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_ND) < 0) {
            PyBuffer_Release(&cv); PyBuffer_Release(&ev); return -1;
        }
        if (PyObject_GetBuffer(out, &ov, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            PyBuffer_Release(&cv); PyBuffer_Release(&ev); PyBuffer_Release(&rv); return -1;
        }
        n = rv.ndim == 2 ? rv.shape[0] : 0;
        k = rv.ndim == 2 ? rv.shape[1] : 0;
        if (cv.itemsize != 4 || ev.itemsize != 8 || rv.itemsize != 4 || ov.itemsize != 4 || rv.ndim != 2
                || ov.len / 4 < n || ev.len < 16) {
            PyErr_SetString(PyExc_ValueError, "memo kernel: walk_rows wants int32 comp, rows and out, int64 edges");
        } else {
            const int32_t *cp = cv.buf, *rp = rv.buf;
            const int64_t *ep = ev.buf;
            int32_t *op = ov.buf;
            const uint64_t esize = (uint64_t)ev.len / 16;
            for (j = 0; j < n; j++) op[j] = mc_walk((int32_t)root, rp + j * k, cp, ep, esize);
            ok = 1;
        }
        PyBuffer_Release(&cv); PyBuffer_Release(&ev); PyBuffer_Release(&rv); PyBuffer_Release(&ov);
        return ok ? n : -1;
    }

    /* Insert keys[j] -> vals[j] (keys distinct from those present, positive) into the pair table `edges`. */
    static int64_t mc_pair_insert(PyObject *edges, PyObject *keys, PyObject *vals) {
        Py_buffer a, b, bv;
        int64_t n = 0;
        if (PyObject_GetBuffer(edges, &a, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (PyObject_GetBuffer(keys, &b, PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&a); return -1; }
        if (PyObject_GetBuffer(vals, &bv, PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&a); PyBuffer_Release(&b); return -1; }
        {
            int64_t *t = a.buf;
            const int64_t *k = b.buf, *v = bv.buf;
            uint64_t nt = (uint64_t)(a.len / 16);
            Py_ssize_t nk = b.len / 8, j;
            for (j = 0; j < nk; j++) {
                mc_pair_put(t, nt, k[j], v[j]);
                n++;
            }
        }
        PyBuffer_Release(&a); PyBuffer_Release(&b); PyBuffer_Release(&bv);
        return n;
    }

    /* Re-insert the pairs of `old` into the empty, larger pair table `new`. */
    static int64_t mc_pair_rehash(PyObject *old, PyObject *new) {
        Py_buffer a, b;
        int64_t n = 0;
        if (PyObject_GetBuffer(old, &a, PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (PyObject_GetBuffer(new, &b, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) { PyBuffer_Release(&a); return -1; }
        {
            const int64_t *o = a.buf;
            int64_t *t = b.buf;
            uint64_t na = (uint64_t)(a.len / 16), nb = (uint64_t)(b.len / 16), j;
            for (j = 0; j < na; j++) {
                if (!o[2 * j]) continue;
                mc_pair_put(t, nb, o[2 * j], o[2 * j + 1]);
                n++;
            }
        }
        PyBuffer_Release(&a); PyBuffer_Release(&b);
        return n;
    }

    /* Write list[start:] (ints) into the array `arr` from item `at` on, as int32 (4-byte items) or as 64-bit
       words (8-byte items, any int below 2^64 taken modulo 2^64): what is learnt reaches the C tables in
       one call, not through a numpy array made of each list first.  The caller made room. */
    static int64_t mc_put_list(PyObject *arr, int64_t at, PyObject *list, int64_t start) {
        Py_buffer a;
        Py_ssize_t n, j;
        if (!PyList_Check(list)) { PyErr_SetString(PyExc_TypeError, "memo kernel: put_list takes a list"); return -1; }
        if (PyObject_GetBuffer(arr, &a, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
        n = PyList_GET_SIZE(list) - start;
        if (start < 0 || n < 0 || at < 0 || (a.itemsize != 4 && a.itemsize != 8) || (at + n) * a.itemsize > a.len) {
            PyBuffer_Release(&a);
            PyErr_SetString(PyExc_ValueError, "memo kernel: put_list out of the array's bounds");
            return -1;
        }
        for (j = 0; j < n; j++) {
            PyObject *x = PyList_GET_ITEM(list, start + j);
            if (a.itemsize == 4) {
                long long v = PyLong_AsLongLong(x);
                if (v == -1 && PyErr_Occurred()) { PyBuffer_Release(&a); return -1; }
                if (v < INT32_MIN || v > INT32_MAX) {
                    PyBuffer_Release(&a);
                    PyErr_SetString(PyExc_OverflowError, "memo kernel: put_list: an int32 out of range");
                    return -1;
                }
                ((int32_t *)a.buf)[at + j] = (int32_t)v;
            } else {
                unsigned long long v = PyLong_AsUnsignedLongLongMask(x);
                if (v == (unsigned long long)-1 && PyErr_Occurred()) { PyBuffer_Release(&a); return -1; }
                ((uint64_t *)a.buf)[at + j] = (uint64_t)v;
            }
        }
        PyBuffer_Release(&a);
        return n;
    }

    /* Write leaf records (mc_leaf) from item `at` on of the array `leaves`: starts[j], counts[j], masks[j]. */
    static int64_t mc_put_leaves(PyObject *leaves, int64_t at, PyObject *starts, PyObject *counts, PyObject *masks) {
        Py_buffer a;
        Py_ssize_t n, j;
        if (!PyList_Check(starts) || !PyList_Check(counts) || !PyList_Check(masks)) {
            PyErr_SetString(PyExc_TypeError, "memo kernel: put_leaves takes lists");
            return -1;
        }
        n = PyList_GET_SIZE(starts);
        if (PyList_GET_SIZE(counts) != n || PyList_GET_SIZE(masks) != n) {
            PyErr_SetString(PyExc_ValueError, "memo kernel: put_leaves: lists of different lengths");
            return -1;
        }
        if (PyObject_GetBuffer(leaves, &a, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (a.itemsize != sizeof(mc_leaf) || at < 0 || (at + n) * a.itemsize > a.len) {
            PyBuffer_Release(&a);
            PyErr_SetString(PyExc_ValueError, "memo kernel: put_leaves out of the array's bounds");
            return -1;
        }
        for (j = 0; j < n; j++) {
            mc_leaf *l = (mc_leaf *)a.buf + at + j;
            long long st = PyLong_AsLongLong(PyList_GET_ITEM(starts, j));
            long long ct = PyLong_AsLongLong(PyList_GET_ITEM(counts, j));
            unsigned long long m = PyLong_AsUnsignedLongLongMask(PyList_GET_ITEM(masks, j));
            if (PyErr_Occurred()) { PyBuffer_Release(&a); return -1; }
            if (st < 0 || st > INT32_MAX || ct < INT32_MIN || ct > INT32_MAX) {
                PyBuffer_Release(&a);
                PyErr_SetString(PyExc_OverflowError, "memo kernel: put_leaves: a start or count out of range");
                return -1;
            }
            l->start = (int32_t)st;
            l->count = (int32_t)ct;
            l->mask = (uint64_t)m;
        }
        PyBuffer_Release(&a);
        return n;
    }

    /* Insert the edges of `pending` (a dict: key -> child code) into the pair table `edges`, each value the
       child's code and, for an inner child (code >= 0), 32 bits above it the component it reads,
       comps[code] (tries._edge_value).  The keys are positive and not in the table yet, which has room. */
    static int64_t mc_pair_insert_codes(PyObject *edges, PyObject *pending, PyObject *comps) {
        Py_buffer a;
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        int64_t n = 0;
        if (!PyDict_Check(pending) || !PyList_Check(comps)) {
            PyErr_SetString(PyExc_TypeError, "memo kernel: pair_insert_codes takes a dict and a list");
            return -1;
        }
        if (PyObject_GetBuffer(edges, &a, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
        if (a.itemsize != 8) {
            PyBuffer_Release(&a);
            PyErr_SetString(PyExc_ValueError, "memo kernel: the edge table is int64");
            return -1;
        }
        {
            int64_t *t = a.buf;
            const uint64_t nt = (uint64_t)(a.len / 16);
            while (PyDict_Next(pending, &pos, &key, &value)) {
                long long k = PyLong_AsLongLong(key), code = PyLong_AsLongLong(value), v = code;
                if (PyErr_Occurred()) { PyBuffer_Release(&a); return -1; }
                if (code >= 0) {
                    long long comp;
                    if (code >= PyList_GET_SIZE(comps)) {
                        PyBuffer_Release(&a);
                        PyErr_SetString(PyExc_ValueError, "memo kernel: an edge to a node not made");
                        return -1;
                    }
                    comp = PyLong_AsLongLong(PyList_GET_ITEM(comps, code));
                    if (comp == -1 && PyErr_Occurred()) { PyBuffer_Release(&a); return -1; }
                    v = (long long)(((uint64_t)comp << 32) | (uint64_t)code);
                }
                if (k <= 0 || (uint64_t)n >= nt) {
                    PyBuffer_Release(&a);
                    PyErr_SetString(PyExc_ValueError, "memo kernel: a key not positive, or no room");
                    return -1;
                }
                mc_pair_put(t, nt, k, v);
                n++;
            }
        }
        PyBuffer_Release(&a);
        return n;
    }
    """
    long long mc_memo_expand(object table, object scalars, object crew, object orbit) except -1
    object mc_crew_new(long long n, long long test_mode)
    long long mc_crew_stop(object crew) except -1
    long long mc_crew_go(object crew, object table, object scalars, object state, long long new_level) except -1
    long long mc_crew_count(object crew, long long what) except -1

    long long mc_rehash(object old, object new) except -1
    long long mc_pair_insert(object edges, object keys, object vals) except -1
    long long mc_pair_rehash(object old, object new) except -1
    long long mc_put_list(object arr, long long at, object values, long long start) except -1
    long long mc_put_leaves(object leaves, long long at, object starts, object counts, object masks) except -1
    long long mc_pair_insert_codes(object edges, object pending, object comps) except -1
    long long mc_walk_rows(long long root, object comp, object edges, object rows, object out) except -1
