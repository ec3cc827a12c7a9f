/* The junction fit's revert (docs/rig.md "The junction fit"): a free vertex takes the file's
 * weights back wherever that is no worse for its edges over the poses, alone, in pairs across
 * an edge that tears anew, or in patches of body skin. */
#include "junction_internal.h"

#include <math.h>
#include <string.h>

/* How vertex i's edges fare over the poses with its positions `pi`, in the measure's order
 * of concern: new tears (torn, and not torn with the file's weights), then tears, then the
 * squared change of length. */
typedef struct edge_score {
    uint32_t new_torn, torn, near;
    double squared;
} edge_score;

/* The stretches of the edge a-b in poses t0..t0+n-1 (n at most RATIO_CHUNK), as pose_ratio
 * computes them: the squared lengths first, then the roots and quotients over a whole chunk
 * (the tail padded), a loop of fixed length that the compiler turns into vector square roots
 * and divisions at -O2. Both are correctly rounded, so the bits are pose_ratio's. */
static void chunk_ratios(const float* a, const float* b, uint32_t t0, uint32_t n, float L,
                         float* r) {
    float sq[RATIO_CHUNK];
    for (uint32_t u = 0; u < n; ++u) {
        const float* x = a + 3 * (size_t)(t0 + u);
        const float* y = b + 3 * (size_t)(t0 + u);
        float d[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]};
        sq[u] = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    }
    for (uint32_t u = n; u < RATIO_CHUNK; ++u)
        sq[u] = 1;
    for (uint32_t u = 0; u < RATIO_CHUNK; ++u)
        r[u] = sqrtf(sq[u]) / L;
}

/* Vertex i's score, cut short once its new tears exceed `limit` (UINT32_MAX: never): the
 * judgements below need no more to know it is worse (no_worse compares new tears first). */
static edge_score vertex_score(const fit* f, uint32_t i, const float* pi, uint32_t limit) {
    const rig_ctx* ctx = f->ctx;
    uint32_t v = f->verts[i];
    edge_score s = {0, 0, 0, 0};
    float r[RATIO_CHUNK];
    for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1] && s.new_torn <= limit; ++k) {
        int32_t j = f->local[ctx->adj[k]];
        float L = ctx->adj_len[k];
        if (j < 0 || !(L > 1e-6f * ctx->H)) continue;
        const float* pj = f->pos + (size_t)j * f->P * 3;
        const uint8_t* torn_in = f->torn_in + ((size_t)f->eoff[i] + (k - ctx->adj_off[v])) * f->P;
        for (uint32_t t0 = 0; t0 < f->P; t0 += RATIO_CHUNK) {
            uint32_t n = f->P - t0 < RATIO_CHUNK ? f->P - t0 : RATIO_CHUNK;
            chunk_ratios(pi, pj, t0, n, L, r); /* then the counts and the sum in pose order */
            for (uint32_t u = 0; u < n; ++u) {
                bool torn = is_torn(r[u]);
                s.new_torn += torn && !torn_in[t0 + u];
                s.torn += torn;
                s.near += r[u] > FIT_NEAR || r[u] * FIT_NEAR < 1;
                s.squared += (double)(r[u] - 1) * (r[u] - 1);
            }
        }
    }
    return s;
}

/* Does the edge between free vertices i and j tear in some pose where the file's weights
 * did not tear it? */
static bool edge_tears_anew(const fit* f, uint32_t i, uint32_t j, uint32_t k, float L) {
    if (!(L > 1e-6f * f->ctx->H)) return false;
    const float* pi = f->pos + (size_t)i * f->P * 3;
    const float* pj = f->pos + (size_t)j * f->P * 3;
    const uint8_t* torn_in =
        f->torn_in + ((size_t)f->eoff[i] + (k - f->ctx->adj_off[f->verts[i]])) * f->P;
    for (uint32_t t = 0; t < f->P; ++t)
        if (!torn_in[t] && is_torn(pose_ratio(pi, pj, t, L))) return true;
    return false;
}

/* The tail as the kept pass has it (f->tail): the part, and every free vertex outside it
 * that the pass puts at least FIT_PART_END on the chain's bones (the share at which the part
 * ends, write_back): skin the fit moves with the tail is tail skin, whatever the part says. */
static bool mark_tail(fit* f) {
    f->tail = calloc((size_t)f->nl + 1, 1);
    if (!f->tail) return false;
    uint32_t C = FIT_CANDIDATES;
    for (uint32_t i = 0; i < f->nl; ++i) {
        double share = 0;
        for (uint32_t c = 0; i < f->nf && c < f->ncand[i]; ++c)
            if (f->group_joint[f->cand[i * C + c]] >= f->ctx->skin->joint_count)
                share += f->w[i * C + c];
        f->tail[i] = f->in_part[i] || share >= FIT_PART_END;
    }
    return true;
}

/* Which edge samples of the free vertices the file's weights tear (f->torn_in). An edge
 * inside the tail gets none: the file's tears there excuse nothing (the tail must not tear,
 * whatever the file did), so the revert and the repair count its tears as new. Nor, in a fit
 * from clips, an edge of reached skin: the reach took it because the file tears it, and the
 * kept pass counts its every tear (docs/rig.md §8, session 12); excused, the revert gave the
 * reach back one vertex at a time. */
static bool mark_torn_in(fit* f) {
    const rig_ctx* ctx = f->ctx;
    f->torn_in = calloc((size_t)f->eoff[f->nf] * f->P + 1, 1);
    if (!f->torn_in) return false;
    bool clips = rig_fit_poses_from_clips(f);
    for (uint32_t i = 0; i < f->nf; ++i) {
        uint32_t v = f->verts[i];
        const float* qi = f->pos_in + (size_t)i * f->P * 3;
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t j = f->local[ctx->adj[k]];
            float L = ctx->adj_len[k];
            if (j < 0 || !(L > 1e-6f * ctx->H) || (f->tail[i] && f->tail[j]) ||
                (clips && (f->reached[i] || f->reached[j])))
                continue;
            const float* qj = f->pos_in + (size_t)j * f->P * 3;
            uint8_t* out = f->torn_in + ((size_t)f->eoff[i] + (k - ctx->adj_off[v])) * f->P;
            for (uint32_t t = 0; t < f->P; ++t)
                out[t] = is_torn(pose_ratio(qi, qj, t, L));
        }
    }
    return true;
}

/* a no worse than b, in that order of concern */
static bool no_worse(const edge_score* a, const edge_score* b) {
    if (a->new_torn != b->new_torn) return a->new_torn < b->new_torn;
    if (a->torn != b->torn) return a->torn < b->torn;
    return a->squared <= b->squared;
}

static const float* g_depth; /* for the sort below (qsort has no context argument) */

static int deeper_first(const void* a, const void* b) {
    float x = g_depth[*(const uint32_t*)a], y = g_depth[*(const uint32_t*)b];
    return x > y ? -1 : x < y;
}

/* May free vertex i take the file's weights back? Not a vertex of the part: the revert judges
 * a vertex by its own edges, and the file's binding of a root vertex of the tail to the body
 * joint it hangs from looks no worse there, while it stretches the tail's edges beyond once
 * the chain moves (docs/rig.md §8, session 14: on the stag and the T. rex bound `parent` the
 * whole tail's p99 rose above the input's). Before session 14 a part vertex was given back
 * where its file joints passed the misbinding rule; in a fit with no clip never (the range of
 * motion holds the chain still but for its swings). Nor a held vertex (mark_held). */
static bool may_revert(const fit* f, uint32_t i) {
    if (f->held && f->held[i]) return false; /* the file's binding of the tail's skin */
    return !f->in_part[i];
}

/* May free vertex i be in a patch of body skin given back together? */
static bool may_join_patch(const fit* f, uint32_t i) {
    return !f->in_part[i] && !(f->held && f->held[i]);
}

/* What is worth judging again (docs/rig.md "The junction fit", revert): a single revert of
 * vertex i depends on the positions within one ring of it, a pair with a neighbour on two
 * rings, a patch around it (three rings and their edges) on four; each bit is cleared when the
 * vertex is judged and set again when a vertex that near it changes. */
enum { DIRTY_SINGLE = 1, DIRTY_PAIR = 2, DIRTY_PATCH = 4, DIRTY_RINGS = 4 };

typedef struct marks {
    uint8_t* dirty;  /* nf: DIRTY_* bits */
    uint8_t* ring;   /* nl: rings from the changed vertex, 0xff unvisited */
    uint32_t* queue; /* nl */
} marks;

/* Free vertex i's positions changed: the reverts near it are worth judging again. */
static void mark_around(const fit* f, uint32_t i, marks* m) {
    const rig_ctx* ctx = f->ctx;
    uint32_t head = 0, tail = 0;
    m->queue[tail++] = i;
    m->ring[i] = 0;
    while (head < tail) {
        uint32_t x = m->queue[head++], d = m->ring[x];
        if (x < f->nf && d > 0)
            m->dirty[x] |= (d <= 1 ? DIRTY_SINGLE : 0) | (d <= 2 ? DIRTY_PAIR : 0) | DIRTY_PATCH;
        if (d == DIRTY_RINGS) continue;
        uint32_t v = f->verts[x];
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t j = f->local[ctx->adj[k]];
            if (j < 0 || m->ring[j] != 0xff) continue;
            m->ring[j] = (uint8_t)(d + 1);
            m->queue[tail++] = (uint32_t)j;
        }
    }
    for (uint32_t q = 0; q < tail; ++q)
        m->ring[m->queue[q]] = 0xff;
}

/* One sweep of single reverts, in `sequence`: a vertex takes the file's weights back where
 * that is no worse for its edges. Only `dirty` vertices are judged (the others' edges are as
 * when they were last judged no better). Returns how many did. */
static uint32_t revert_singles(fit* f, const uint32_t* sequence, uint8_t* reverted, marks* m,
                               float* trial) {
    size_t bytes = (size_t)f->P * 3 * sizeof *trial;
    uint32_t count = 0;
    for (uint32_t n = 0; n < f->nf; ++n) {
        uint32_t i = sequence[n];
        if (reverted[i] || !(m->dirty[i] & DIRTY_SINGLE) || !may_revert(f, i)) continue;
        m->dirty[i] &= (uint8_t)~DIRTY_SINGLE;
        float* pi = f->pos + (size_t)i * f->P * 3;
        memcpy(trial, f->pos_in + (size_t)i * f->P * 3, bytes);
        edge_score fitted = vertex_score(f, i, pi, UINT32_MAX);
        edge_score in = vertex_score(f, i, trial, fitted.new_torn);
        if (no_worse(&in, &fitted)) {
            memcpy(pi, trial, bytes);
            reverted[i] = 1;
            mark_around(f, i, m);
            ++count;
        }
    }
    return count;
}

/* One sweep of pair reverts: two neighbours given back together where one alone would tear
 * the edge between them (a seam of the fitted set inside the file's weights). Returns how
 * many vertices were. */
static uint32_t revert_pairs(fit* f, const uint32_t* sequence, uint8_t* reverted, marks* m,
                             float* trial, float* trial2) {
    const rig_ctx* ctx = f->ctx;
    size_t bytes = (size_t)f->P * 3 * sizeof *trial;
    uint32_t count = 0;
    for (uint32_t n = 0; n < f->nf; ++n) {
        uint32_t i = sequence[n];
        if (reverted[i] || !(m->dirty[i] & DIRTY_PAIR) || !may_revert(f, i)) continue;
        m->dirty[i] &= (uint8_t)~DIRTY_PAIR;
        uint32_t v = f->verts[i];
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1] && !reverted[i]; ++k) {
            int32_t lj = f->local[ctx->adj[k]];
            if (lj < 0 || (uint32_t)lj >= f->nf || reverted[lj] || !may_revert(f, (uint32_t)lj))
                continue;
            uint32_t j = (uint32_t)lj;
            if (!edge_tears_anew(f, i, j, k, ctx->adj_len[k])) continue;
            float* pi = f->pos + (size_t)i * f->P * 3;
            float* pj = f->pos + (size_t)j * f->P * 3;
            edge_score a = vertex_score(f, i, pi, UINT32_MAX),
                       b = vertex_score(f, j, pj, UINT32_MAX);
            edge_score fitted = {a.new_torn + b.new_torn, a.torn + b.torn, 0,
                                 a.squared + b.squared};
            memcpy(trial, pi, bytes);
            memcpy(pi, f->pos_in + (size_t)i * f->P * 3, bytes);
            memcpy(trial2, pj, bytes);
            memcpy(pj, f->pos_in + (size_t)j * f->P * 3, bytes);
            a = vertex_score(f, i, pi, fitted.new_torn);
            b = a.new_torn > fitted.new_torn ? (edge_score){0, 0, 0, 0}
                                             : vertex_score(f, j, pj, fitted.new_torn - a.new_torn);
            edge_score in = {a.new_torn + b.new_torn, a.torn + b.torn, 0, a.squared + b.squared};
            if (no_worse(&in, &fitted)) {
                reverted[i] = reverted[j] = 1;
                mark_around(f, i, m), mark_around(f, j, m);
                count += 2;
            } else {
                memcpy(pi, trial, bytes);
                memcpy(pj, trial2, bytes);
            }
        }
    }
    return count;
}

/* One sweep of patch reverts: around a body vertex (outside the part) with an edge that
 * tears anew, the fitted body vertices within FIT_PATCH_RINGS rings given back together,
 * ring by ring, at the first size where that is no worse for their edges (a patch of fitted
 * weights inside the file's that no pair can close). `saved` holds the patch's positions
 * (FIT_PATCH_MAX × P × 3). Returns how many vertices were. */
static uint32_t revert_patches(fit* f, const uint32_t* sequence, uint8_t* reverted, marks* mk,
                               uint32_t* patch, float* saved) {
    const rig_ctx* ctx = f->ctx;
    size_t bytes = (size_t)f->P * 3 * sizeof *saved;
    uint32_t count = 0;
    for (uint32_t n = 0; n < f->nf; ++n) {
        uint32_t i = sequence[n], v = f->verts[i];
        if (reverted[i] || !may_join_patch(f, i) || !(mk->dirty[i] & DIRTY_PATCH)) continue;
        mk->dirty[i] &= (uint8_t)~DIRTY_PATCH;
        bool anew = false;
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1] && !anew; ++k) {
            int32_t j = f->local[ctx->adj[k]];
            anew = j >= 0 && (uint32_t)j < f->nf &&
                   edge_tears_anew(f, i, (uint32_t)j, k, ctx->adj_len[k]);
        }
        if (!anew) continue;
        uint32_t size = 1, from = 0, grown = 0;
        edge_score fitted = {0, 0, 0, 0}; /* the patch's score with its fitted weights */
        /* each member's score with the patch given back: a member two rings inside the newest
           has every neighbour given back already in the trial before, so its score is kept
           (summed in the same order: the same bits) */
        edge_score kept[FIT_PATCH_MAX];
        uint8_t known[FIT_PATCH_MAX] = {0};
        patch[0] = i;
        reverted[i] = 3; /* marks the patch while it grows */
        bool done = false;
        for (uint32_t ring = 1; ring <= FIT_PATCH_RINGS && !done; ++ring) {
            uint32_t end = size;
            for (uint32_t m = grown; m < end; ++m) {
                uint32_t u = f->verts[patch[m]];
                for (uint32_t k = ctx->adj_off[u]; k < ctx->adj_off[u + 1]; ++k) {
                    int32_t j = f->local[ctx->adj[k]];
                    if (j < 0 || (uint32_t)j >= f->nf || reverted[j] ||
                        !may_join_patch(f, (uint32_t)j) || size == FIT_PATCH_MAX)
                        continue;
                    reverted[j] = 3;
                    patch[size++] = (uint32_t)j;
                }
            }
            for (uint32_t m = grown; m < end; ++m) /* the ring before: its neighbours changed */
                known[m] = 0;
            grown = end;
            edge_score in = {0, 0, 0, 0};
            for (uint32_t m = from; m < size; ++m) { /* the new ring's fitted score, kept */
                float* pm = f->pos + (size_t)patch[m] * f->P * 3;
                edge_score a = vertex_score(f, patch[m], pm, UINT32_MAX);
                known[m] = 0;
                fitted.new_torn += a.new_torn, fitted.torn += a.torn, fitted.squared += a.squared;
                memcpy(saved + (size_t)m * f->P * 3, pm, bytes);
            }
            from = size;
            for (uint32_t m = 0; m < size; ++m)
                memcpy(f->pos + (size_t)patch[m] * f->P * 3,
                       f->pos_in + (size_t)patch[m] * f->P * 3, bytes);
            for (uint32_t m = 0; m < size && in.new_torn <= fitted.new_torn; ++m) {
                if (!known[m]) { /* cut short once the patch is worse: not kept then */
                    uint32_t limit = fitted.new_torn - in.new_torn;
                    kept[m] =
                        vertex_score(f, patch[m], f->pos + (size_t)patch[m] * f->P * 3, limit);
                    known[m] = kept[m].new_torn <= limit;
                }
                in.new_torn += kept[m].new_torn, in.torn += kept[m].torn;
                in.squared += kept[m].squared;
            }
            done = no_worse(&in, &fitted);
            if (!done)
                for (uint32_t m = 0; m < size; ++m)
                    memcpy(f->pos + (size_t)patch[m] * f->P * 3, saved + (size_t)m * f->P * 3,
                           bytes);
        }
        for (uint32_t m = 0; m < size; ++m) {
            reverted[patch[m]] = done ? 1 : 0;
            if (done) mark_around(f, patch[m], mk);
        }
        if (done) count += size;
    }
    return count;
}

/* Solves the n × n system A x = b in place (Gaussian elimination, partial pivoting); false
 * when singular. */
static bool solve_small(double* A, double* b, uint32_t n) {
    for (uint32_t c = 0; c < n; ++c) {
        uint32_t piv = c;
        for (uint32_t r = c + 1; r < n; ++r)
            if (fabs(A[r * n + c]) > fabs(A[piv * n + c])) piv = r;
        if (!(fabs(A[piv * n + c]) > 1e-12)) return false;
        if (piv != c) {
            for (uint32_t k = 0; k < n; ++k) {
                double x = A[c * n + k];
                A[c * n + k] = A[piv * n + k], A[piv * n + k] = x;
            }
            double x = b[c];
            b[c] = b[piv], b[piv] = x;
        }
        for (uint32_t r = c + 1; r < n; ++r) {
            double m = A[r * n + c] / A[c * n + c];
            for (uint32_t k = c; k < n; ++k)
                A[r * n + k] -= m * A[c * n + k];
            b[r] -= m * b[c];
        }
    }
    for (uint32_t c = n; c-- > 0;) {
        double x = b[c];
        for (uint32_t k = c + 1; k < n; ++k)
            x -= A[c * n + k] * b[k];
        b[c] = x / A[c * n + c];
    }
    return true;
}

/* One local/global step of free vertex i's weights alone, its neighbours held: each edge
 * sample's deformed direction fixed from `pi`, a sample that tears anew weighing
 * FIT_REPAIR_HEAVY more, a pull of FIT_REPAIR_PULL (of the data term's mean diagonal) towards
 * the current weights, sum to one by a Lagrange multiplier; then projected as the passes
 * project (non-negative, at most four, renormalised). Writes `w` (ncand); false when the
 * system is singular or nothing is left. */
static bool local_step(const fit* f, uint32_t i, const float* pi, double* w) {
    const rig_ctx* ctx = f->ctx;
    uint32_t C = FIT_CANDIDATES, n = f->ncand[i], v = f->verts[i], N = n + 1;
    double A[(FIT_CANDIDATES + 1) * (FIT_CANDIDATES + 1)] = {0}, b[FIT_CANDIDATES + 1] = {0};
    const float* cp = f->cpos + (size_t)i * C * f->P * 3;
    /* the candidates' positions do not depend on the edge: per pose, the edges' weights and
       weighted targets are summed first, then one outer product of the candidates */
    for (uint32_t t = 0; t < f->P; ++t) {
        double W = 0, T[3] = {0, 0, 0};
        for (uint32_t k = ctx->adj_off[v]; k < ctx->adj_off[v + 1]; ++k) {
            int32_t j = f->local[ctx->adj[k]];
            float L = ctx->adj_len[k];
            if (j < 0 || !(L > 1e-6f * ctx->H)) continue;
            const float* pj = f->pos + (size_t)j * f->P * 3;
            uint8_t torn_in = f->torn_in[((size_t)f->eoff[i] + (k - ctx->adj_off[v])) * f->P + t];
            double d[3] = {pi[3 * t] - pj[3 * t], pi[3 * t + 1] - pj[3 * t + 1],
                           pi[3 * t + 2] - pj[3 * t + 2]};
            double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (!(len > 0)) continue;
            bool anew = is_torn((float)(len / L)) && !torn_in;
            /* a tear inside the tail first, then new tears (the measure's order of concern) */
            double heavy = f->tail[i] && f->tail[j] ? FIT_REPAIR_HEAVY * (1 + FIT_REPAIR_HEAVY)
                                                    : FIT_REPAIR_HEAVY;
            double om = (1 + (anew ? heavy : 0)) / ((double)L * L);
            W += om;
            for (int x = 0; x < 3; ++x)
                T[x] += om * (pj[3 * t + x] + L * d[x] / len);
        }
        if (!(W > 0)) continue;
        for (int x = 0; x < 3; ++x)
            for (uint32_t c = 0; c < n; ++c) {
                double xc = cp[((size_t)c * f->P + t) * 3 + x];
                b[c] += xc * T[x];
                for (uint32_t e = 0; e < n; ++e)
                    A[c * N + e] += W * xc * cp[((size_t)e * f->P + t) * 3 + x];
            }
    }
    double mean = 0;
    for (uint32_t c = 0; c < n; ++c)
        mean += A[c * N + c] / n;
    for (uint32_t c = 0; c < n; ++c) {
        A[c * N + c] += FIT_REPAIR_PULL * mean;
        b[c] += FIT_REPAIR_PULL * mean * f->w[i * C + c];
        A[c * N + n] = A[n * N + c] = 1;
    }
    b[n] = 1;
    if (!solve_small(A, b, N)) return false;
    uint32_t count = 0;
    for (uint32_t c = 0; c < n; ++c) {
        w[c] = b[c] >= FIT_DROP ? b[c] : 0;
        count += w[c] > 0;
    }
    for (; count > FIT_MAX_INFLUENCES; --count) { /* the four largest kept */
        uint32_t low = UINT32_MAX;
        for (uint32_t c = 0; c < n; ++c)
            if (w[c] > 0 && (low == UINT32_MAX || w[c] < w[low])) low = c;
        w[low] = 0;
    }
    double sum = 0;
    for (uint32_t c = 0; c < n; ++c)
        sum += w[c];
    if (!(sum > 0)) return false;
    for (uint32_t c = 0; c < n; ++c)
        w[c] /= sum;
    return true;
}

/* The repair: a fitted vertex whose edges still tear anew after the reverts gets its weights
 * solved again alone (local_step, up to FIT_REPAIR_STEPS times), its neighbours held; kept at
 * the first step that gives it fewer new tears, no more tears and, inside the part, no more
 * samples near tearing (the tail must not tear, whatever the file did). The global passes
 * trade a vertex's few tearing samples against all its others; this weighs those samples
 * alone. Returns how many were kept. */
static uint32_t repair_vertices(fit* f, const uint8_t* reverted, float* trial, uint8_t* retry) {
    const rig_ctx* ctx = f->ctx;
    uint32_t C = FIT_CANDIDATES, count = 0;
    size_t bytes = (size_t)f->P * 3 * sizeof *trial;
    for (uint32_t i = 0; i < f->nf; ++i) {
        if (reverted[i] || f->ncand[i] < 2 || !(retry[i] & 1)) continue;
        retry[i] &= (uint8_t)~1;
        float* pi = f->pos + (size_t)i * f->P * 3;
        edge_score now = vertex_score(f, i, pi, UINT32_MAX);
        if (now.new_torn == 0) continue;
        double keep[FIT_CANDIDATES], w[FIT_CANDIDATES];
        for (uint32_t c = 0; c < f->ncand[i]; ++c)
            keep[c] = f->w[i * C + c];
        memcpy(trial, pi, bytes);
        bool kept = false;
        for (int step = 0; step < FIT_REPAIR_STEPS && !kept; ++step) {
            if (!local_step(f, i, pi, w)) break;
            for (uint32_t c = 0; c < f->ncand[i]; ++c)
                f->w[i * C + c] = w[c];
            rig_fit_free_positions(f, i);
            edge_score s = vertex_score(f, i, pi, now.new_torn - 1); /* kept only below */
            kept = s.new_torn < now.new_torn && s.torn <= now.torn &&
                   (!f->in_part[i] || s.near <= now.near);
        }
        if (kept) {
            for (uint32_t c = 0; c < f->ncand[i]; ++c)
                f->active[i * C + c] = f->w[i * C + c] > 0;
            ++count;
            retry[i] |= 1; /* it may improve again, and */
            for (uint32_t k = ctx->adj_off[f->verts[i]]; k < ctx->adj_off[f->verts[i] + 1]; ++k) {
                int32_t j = f->local[ctx->adj[k]]; /* its neighbours are worth judging again */
                if (j >= 0 && (uint32_t)j < f->nf) retry[j] |= 1;
            }
        } else {
            for (uint32_t c = 0; c < f->ncand[i]; ++c)
                f->w[i * C + c] = keep[c];
            memcpy(pi, trial, bytes);
        }
    }
    return count;
}

/* 4. The revert: the file's weights wherever they are no worse for the vertex's edges, from
 * the outside in (the fixed body first), in sweeps until none changes: a revert can make its
 * inner neighbour's worth it. Marks `reverted` (nf) and counts the reverts. */
bool rig_fit_revert(fit* f, uint8_t* reverted, uint32_t* reverts) {
    uint32_t nf = f->nf;
    float* trial = malloc(((size_t)f->P + 1) * 3 * sizeof *trial);
    float* trial2 = malloc(((size_t)f->P + 1) * 3 * sizeof *trial2);
    uint32_t* sequence = malloc(((size_t)nf + 1) * sizeof *sequence);
    uint32_t* patch = malloc(FIT_PATCH_MAX * sizeof *patch);
    float* saved = malloc(((size_t)FIT_PATCH_MAX * f->P + 1) * 3 * sizeof *saved);
    marks mk = {malloc((size_t)nf + 1), malloc((size_t)f->nl + 1),
                malloc(((size_t)f->nl + 1) * sizeof *mk.queue)};
    bool ok = trial && trial2 && sequence && patch && saved && mk.dirty && mk.ring && mk.queue &&
              mark_tail(f) && mark_torn_in(f);
    if (mk.dirty) memset(mk.dirty, DIRTY_SINGLE | DIRTY_PAIR | DIRTY_PATCH, (size_t)nf + 1);
    if (mk.ring) memset(mk.ring, 0xff, (size_t)f->nl + 1);
    for (uint32_t i = 0; ok && i < nf; ++i)
        sequence[i] = i;
    if (ok) {
        g_depth = f->depth;
        qsort(sequence, nf, sizeof *sequence, deeper_first);
    }
    *reverts = 0;
    for (int sweep = 0; ok && sweep < 8; ++sweep) {
        uint32_t n = revert_singles(f, sequence, reverted, &mk, trial);
        n += revert_pairs(f, sequence, reverted, &mk, trial, trial2);
        if (n == 0) n += revert_patches(f, sequence, reverted, &mk, patch, saved);
        *reverts += n;
        if (n == 0) break;
    }
    uint8_t* retry = ok ? malloc((size_t)nf + 1) : NULL; /* bit 0: judge in the repair */
    ok = ok && retry;
    if (ok) memset(retry, 1, (size_t)nf + 1);
    for (int sweep = 0; ok && sweep < FIT_REPAIR_SWEEPS; ++sweep) /* then the repair */
        if (repair_vertices(f, reverted, trial, retry) == 0) break;
    free(retry);
    free(sequence), free(trial2), free(trial), free(patch), free(saved);
    free(mk.dirty), free(mk.ring), free(mk.queue);
    return ok;
}
