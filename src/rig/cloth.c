/* A wide part's cloth lattice (cloth.md §1): rows are geodesic bands from the collar, columns
 * follow the collar ring (each vertex takes the column of the collar point it is geodesically
 * nearest to: labels carried by the same Dijkstra), particle (r, c) is the centroid of the skin
 * in band r and cell c, bones sit at every row but the last and every other column, and the
 * part's skin weights interpolate bilinearly over the bone grid (a vertex's column there is that
 * of the rest lattice's nearest point, lattice_column).
 *
 * A garment bound to the legs (a skirt skinned to the thighs) is found only where it stands off
 * the body; when the part lies on a shell of its own (not the body's), the lattice also takes
 * the rest of that shell that hangs from the legs, so the whole skirt below the waist moves as
 * cloth and its collar is where the shell turns to the torso. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI_F 3.14159265f

typedef struct work {
    rig_list verts;  /* welded ids of the lattice's skin */
    rig_list collar; /* welded ids of its collar (outside it) */
    uint32_t m;      /* verts then collar: local ids */
    float* g;        /* m: geodesic distance from the collar */
    uint32_t* label; /* m: local id of the nearest collar vertex */
    float* column;   /* m: column coordinate in [0, columns) */
    uint32_t grown;
    bool own; /* the collar is the lattice's own shell (not skin around it) */
} work;

static void work_free(work* w) {
    rig_list_free(&w->verts);
    rig_list_free(&w->collar);
    free(w->g);
    free(w->label);
    free(w->column);
}

/* The joint a welded vertex is mainly bound to (its first copy's largest influence). */
static uint32_t main_joint(const rig_ctx* ctx, uint32_t w) {
    const tl_scene_skin* s = ctx->skin;
    uint32_t v = ctx->copies[ctx->copy_first[w]], best = 0;
    float bw = -1;
    for (uint32_t k = 0; k < s->influence_count; ++k) {
        float x = s->influence_weights[(size_t)v * s->influence_count + k];
        if (x > bw) bw = x, best = s->influence_joints[(size_t)v * s->influence_count + k];
    }
    return best;
}

/* Breadth-first over unowned welded vertices from the part; with `limb_only`, only through
 * vertices bound mainly to limb joints. Marks ctx->stamp with `mark`; returns false on memory. */
static bool flood(rig_ctx* ctx, const rig_wpart* p, uint32_t mark, bool limb_only, rig_list* out) {
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        uint32_t w = p->verts.items[i];
        ctx->stamp[w] = mark;
        if (!rig_list_push(out, w)) return false;
    }
    for (uint32_t head = 0; head < out->count; ++head) {
        uint32_t w = out->items[head];
        for (uint32_t e = ctx->adj_off[w]; e < ctx->adj_off[w + 1]; ++e) {
            uint32_t u = ctx->adj[e];
            if (ctx->stamp[u] == mark) continue;
            /* other parts: only the reported-only rigid and cloth pieces of the garment */
            int32_t o = ctx->owner[u];
            bool piece = o >= 0 && ctx->parts[o].action == TL_RIG_ACTION_REPORTED &&
                         (ctx->parts[o].cls == TL_RIG_CLASS_RIGID ||
                          ctx->parts[o].cls == TL_RIG_CLASS_CLOTH);
            if (o >= 0 && !piece) continue;
            if (limb_only && !piece && ctx->region[main_joint(ctx, u)] != TL_RIG_REGION_LIMB &&
                ctx->region[main_joint(ctx, u)] != TL_RIG_REGION_PELVIS)
                continue;
            ctx->stamp[u] = mark;
            if (!rig_list_push(out, u)) return false;
        }
    }
    return true;
}

/* Local ids for the lattice's skin and collar (ctx->queue), their stamps left in ctx->stamp. */
static void local_ids(rig_ctx* ctx, work* w) {
    for (uint32_t i = 0; i < w->verts.count; ++i)
        ctx->queue[w->verts.items[i]] = i;
    for (uint32_t i = 0; i < w->collar.count; ++i)
        ctx->queue[w->collar.items[i]] = w->verts.count + i;
    w->m = w->verts.count + w->collar.count;
}

/* The slot of welded neighbour `b` in `a`'s adjacency, or the end when it has none. */
static uint32_t adj_slot(const rig_ctx* ctx, uint32_t a, uint32_t b) {
    uint32_t e = ctx->adj_off[a];
    while (e < ctx->adj_off[a + 1] && ctx->adj[e] != b)
        ++e;
    return e;
}

/* A tube's top: when the part's own edge (edges of one of its triangles only) forms two or more
 * loops (a skirt's waist and hem, a sleeve's two cuffs), the loop nearest the skeleton on
 * average replaces `collar`. The part's vertices nearest the skeleton are a tube's flanks where
 * it passes the legs, and a lattice hanging from two patches has columns that meet at a seam
 * halfway round. A sheet (one loop: a cape) or a closed surface keeps `collar`. */
static bool tube_collar(rig_ctx* ctx, const rig_wpart* p, rig_list* collar) {
    uint32_t in = rig_stamp(ctx);
    for (uint32_t i = 0; i < p->verts.count; ++i)
        ctx->stamp[p->verts.items[i]] = in;
    uint8_t* uses = calloc((size_t)ctx->adj_off[ctx->W] + 1, 1);
    rig_list loop = {0};
    bool ok = uses != NULL;
    const tl_scene_skin* s = ctx->skin;
    for (uint32_t t = 0; ok && t < s->triangle_count; ++t) {
        uint32_t v[3];
        for (int k = 0; k < 3; ++k)
            v[k] = ctx->remap[s->triangles[3 * (size_t)t + k]];
        if (ctx->stamp[v[0]] != in || ctx->stamp[v[1]] != in || ctx->stamp[v[2]] != in) continue;
        for (int k = 0; k < 3; ++k) {
            uint32_t a = v[k], b = v[(k + 1) % 3];
            if (a == b) continue;
            uint32_t e = adj_slot(ctx, a, b), f = adj_slot(ctx, b, a);
            if (e == ctx->adj_off[a + 1] || f == ctx->adj_off[b + 1])
                continue; /* (the graph holds every edge) */
            if (uses[e] < 2) uses[e]++;
            if (uses[f] < 2) uses[f]++;
        }
    }
    uint32_t seen = rig_stamp(ctx), loops = 0;
    float best = INFINITY;
    for (uint32_t i = 0; ok && i < p->verts.count; ++i) {
        uint32_t start = p->verts.items[i];
        if (ctx->stamp[start] == seen) continue;
        bool edge = false;
        for (uint32_t e = ctx->adj_off[start]; e < ctx->adj_off[start + 1]; ++e)
            edge |= uses[e] == 1;
        if (!edge) continue;
        loop.count = 0; /* the loop through `start`, breadth-first along one-triangle edges */
        ctx->stamp[start] = seen;
        ok = rig_list_push(&loop, start);
        double sum = 0;
        for (uint32_t head = 0; ok && head < loop.count; ++head) {
            uint32_t a = loop.items[head];
            sum += ctx->dskel[a];
            for (uint32_t e = ctx->adj_off[a]; ok && e < ctx->adj_off[a + 1]; ++e) {
                uint32_t b = ctx->adj[e];
                if (uses[e] != 1 || ctx->stamp[b] == seen) continue;
                ctx->stamp[b] = seen;
                ok = rig_list_push(&loop, b);
            }
        }
        if (!ok || loop.count < 3) continue;
        float mean = (float)(sum / loop.count);
        if (loops++ == 0 || mean < best) {
            best = mean;
            rig_list keep = *collar;
            *collar = loop;
            loop = keep;
        }
    }
    free(uses);
    rig_list_free(&loop);
    if (ok && loops < 2) collar->count = 0; /* not a tube: the caller's collar */
    return ok;
}

/* A garment modelled apart (a cape) has no skin around it to hang from: its collar is its own
 * top (the part's collar, or a tube's top loop), the rest is the lattice's skin. */
static bool own_collar_skin(rig_ctx* ctx, const rig_wpart* p, work* w) {
    w->own = true;
    if (!tube_collar(ctx, p, &w->collar)) return false;
    bool tube = w->collar.count > 0;
    for (uint32_t i = 0; i < p->collar.count && !tube; ++i)
        if (!rig_list_push(&w->collar, p->collar.items[i])) return false;
    uint32_t ring = rig_stamp(ctx);
    for (uint32_t i = 0; i < w->collar.count; ++i)
        ctx->stamp[w->collar.items[i]] = ring;
    uint32_t in = rig_stamp(ctx);
    for (uint32_t i = 0; i < p->verts.count; ++i) {
        uint32_t v = p->verts.items[i];
        if (ctx->stamp[v] == ring) continue;
        ctx->stamp[v] = in;
        if (!rig_list_push(&w->verts, v)) return false;
    }
    local_ids(ctx, w);
    return w->verts.count > 0;
}

/* The lattice's skin: the part, grown over its own shell's leg-bound skin when that shell is
 * not the body (under half the skin); then its collar: the vertices just outside it. */
static bool lattice_skin(rig_ctx* ctx, const rig_wpart* p, work* w) {
    if (p->own_collar) return own_collar_skin(ctx, p, w);
    rig_list shell = {0};
    bool ok = flood(ctx, p, rig_stamp(ctx), false, &shell);
    bool garment = ok && shell.count < ctx->W / 2;
    rig_list_free(&shell);
    if (!ok) return false;
    uint32_t in = rig_stamp(ctx);
    if (garment) {
        if (!flood(ctx, p, in, true, &w->verts)) return false;
    } else {
        for (uint32_t i = 0; i < p->verts.count; ++i) {
            ctx->stamp[p->verts.items[i]] = in;
            if (!rig_list_push(&w->verts, p->verts.items[i])) return false;
        }
    }
    w->grown = w->verts.count - p->verts.count;
    uint32_t ring = rig_stamp(ctx);
    for (uint32_t i = 0; i < w->verts.count; ++i) {
        uint32_t v = w->verts.items[i];
        for (uint32_t e = ctx->adj_off[v]; e < ctx->adj_off[v + 1]; ++e) {
            uint32_t u = ctx->adj[e];
            if (ctx->stamp[u] == in || ctx->stamp[u] == ring) continue;
            ctx->stamp[u] = ring;
            if (!rig_list_push(&w->collar, u)) return false;
        }
    }
    if (garment && w->collar.count == 0) {
        /* the whole shell hangs from the legs (a skirt skinned to the thighs): nothing of it is
           left to hang from, so its collar is its own top, as a shell modelled apart */
        rig_wpart whole = {0};
        whole.verts = w->verts;
        w->verts = (rig_list){0};
        ok = rig_part_collar(ctx, &whole, NULL) && own_collar_skin(ctx, &whole, w);
        rig_wpart_free(&whole);
        w->grown = w->verts.count + w->collar.count - p->verts.count;
        return ok;
    }
    /* leave every lattice vertex's stamp as `in`, collar as `ring`, local ids in queue */
    local_ids(ctx, w);
    return true;
}

/* ---- Dijkstra from the collar, carrying the nearest collar vertex (a binary heap) ---- */

typedef struct heap_item {
    float d;
    uint32_t v;
} heap_item;

static void heap_push(heap_item* h, uint32_t* n, heap_item x) {
    uint32_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].d > x.d) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static heap_item heap_pop(heap_item* h, uint32_t* n) {
    heap_item top = h[0], last = h[--*n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1].d < h[c].d) c++;
        if (h[c].d >= last.d) break;
        h[i] = h[c];
        i = c;
    }
    if (*n) h[i] = last;
    return top;
}

static bool geodesic_labels(rig_ctx* ctx, work* w) {
    uint32_t m = w->m, n = w->verts.count;
    w->g = malloc((m + 1) * sizeof *w->g);
    w->label = malloc((m + 1) * sizeof *w->label);
    w->column = calloc(m + 1, sizeof *w->column);
    size_t edges = 0;
    for (uint32_t i = 0; i < m; ++i) {
        uint32_t v = i < n ? w->verts.items[i] : w->collar.items[i - n];
        edges += ctx->adj_off[v + 1] - ctx->adj_off[v];
    }
    heap_item* heap = malloc((edges + m + 1) * sizeof *heap);
    if (!w->g || !w->label || !w->column || !heap) {
        free(heap);
        return false;
    }
    uint32_t count = 0, in = ctx->stamp[w->verts.items[0]];
    for (uint32_t i = 0; i < m; ++i)
        w->g[i] = i < n ? INFINITY : 0.0f, w->label[i] = i;
    for (uint32_t i = n; i < m; ++i)
        heap_push(heap, &count, (heap_item){0.0f, i});
    while (count) {
        heap_item top = heap_pop(heap, &count);
        if (top.d > w->g[top.v]) continue;
        uint32_t v = top.v < n ? w->verts.items[top.v] : w->collar.items[top.v - n];
        for (uint32_t e = ctx->adj_off[v]; e < ctx->adj_off[v + 1]; ++e) {
            uint32_t u = ctx->adj[e];
            if (ctx->stamp[u] != in) continue; /* paths run inside the lattice's skin */
            uint32_t lu = ctx->queue[u];
            float d = top.d + ctx->adj_len[e];
            /* paths equal within rounding (a symmetric mesh) go to the lower collar index, so
             * the label does not depend on how the file's scale rounds the two sums */
            float tie = 1e-5f * d;
            bool shorter = d < w->g[lu] - tie;
            if (shorter || (d <= w->g[lu] + tie && w->label[top.v] < w->label[lu])) {
                if (d < w->g[lu]) w->g[lu] = d;
                w->label[lu] = w->label[top.v];
                heap_push(heap, &count, (heap_item){w->g[lu], lu});
            }
        }
    }
    free(heap);
    /* a vertex no path reaches (another shell of the part) hangs at the far end */
    float far = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (isfinite(w->g[i]) && w->g[i] > far) far = w->g[i];
    for (uint32_t i = 0; i < n; ++i)
        if (!isfinite(w->g[i])) w->g[i] = far, w->label[i] = n;
    return true;
}

/* ---- the collar ring: angle around the up axis, arc length, open or closed ---- */

typedef struct ring_point {
    float angle, s;
    uint32_t local;
} ring_point;

static int compare_angle(const void* a, const void* b) {
    float x = ((const ring_point*)a)->angle, y = ((const ring_point*)b)->angle;
    return (x > y) - (x < y);
}

static const float* wpos(const rig_ctx* ctx, uint32_t welded) {
    return ctx->wpos + 3 * (size_t)welded;
}

static float dist3(const float* a, const float* b) {
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

static float ring_angle(const rig_ctx* ctx, const float* p, const float c[3]) {
    const float *up = ctx->skin->up, *fw = ctx->skin->forward, *lat = ctx->skin->lateral;
    float d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    float h = d[0] * up[0] + d[1] * up[1] + d[2] * up[2];
    for (int a = 0; a < 3; ++a)
        d[a] -= h * up[a];
    /* from the back (the middle of a cape), so a cape's opening lands at the front */
    return atan2f(d[0] * lat[0] + d[1] * lat[1] + d[2] * lat[2],
                  -(d[0] * fw[0] + d[1] * fw[1] + d[2] * fw[2]));
}

static int compare_float(const void* a, const void* b) {
    float x = *(const float*)a, y = *(const float*)b;
    return (x > y) - (x < y);
}

/* The largest gap, radians, between the lattice skin's angles around the collar's axis. */
static float largest_gap(const rig_ctx* ctx, const work* w, const float c[3]) {
    uint32_t n = w->verts.count;
    float* a = malloc((n + 1) * sizeof *a);
    if (!a) return 2 * PI_F;
    for (uint32_t i = 0; i < n; ++i)
        a[i] = ring_angle(ctx, wpos(ctx, w->verts.items[i]), c);
    qsort(a, n, sizeof *a, compare_float);
    float gap = n ? a[0] + 2 * PI_F - a[n - 1] : 2 * PI_F;
    for (uint32_t i = 1; i < n; ++i)
        if (a[i] - a[i - 1] > gap) gap = a[i] - a[i - 1];
    free(a);
    return gap;
}

/* Sets each collar vertex's column coordinate; returns the ring's arc length and whether it
 * closes. */
static bool collar_columns(const rig_ctx* ctx, work* w, float* perimeter, bool* closed) {
    uint32_t n = w->verts.count, k = w->collar.count;
    ring_point* pts = malloc((k + 1) * sizeof *pts);
    if (!pts) return false;
    float c[3] = {0, 0, 0};
    for (uint32_t i = 0; i < k; ++i)
        for (int a = 0; a < 3; ++a)
            c[a] += wpos(ctx, w->collar.items[i])[a] / (float)k;
    for (uint32_t i = 0; i < k; ++i) {
        pts[i].angle = ring_angle(ctx, wpos(ctx, w->collar.items[i]), c);
        pts[i].local = n + i;
    }
    qsort(pts, k, sizeof *pts, compare_angle);
    uint32_t gap_at = 0; /* the point after the largest gap */
    float gap = pts[0].angle + 2 * PI_F - pts[k - 1].angle;
    for (uint32_t i = 1; i < k; ++i)
        if (pts[i].angle - pts[i - 1].angle > gap)
            gap = pts[i].angle - pts[i - 1].angle, gap_at = i;
    /* open or closed from the skin around the collar's axis, not the collar alone: a skirt
     * hangs all around the legs even where its waist seam leaves the collar a gap */
    float skin_gap = largest_gap(ctx, w, c);
    *closed = skin_gap * 180.0f / PI_F <= ctx->def->cloth_open_gap_deg;
    float s = 0;
    for (uint32_t j = 0; j < k; ++j) {
        uint32_t i = (gap_at + j) % k;
        if (j)
            s += dist3(wpos(ctx, w->collar.items[pts[i].local - n]),
                       wpos(ctx, w->collar.items[pts[(i + k - 1) % k].local - n]));
        pts[i].s = s;
    }
    if (*closed)
        s += dist3(wpos(ctx, w->collar.items[pts[(gap_at + k - 1) % k].local - n]),
                   wpos(ctx, w->collar.items[pts[gap_at].local - n]));
    *perimeter = s;
    for (uint32_t i = 0; i < k; ++i)
        w->column[pts[i].local] = s > 0 ? pts[i].s / s : 0; /* in [0, 1) for now */
    free(pts);
    return true;
}

/* ---- the lattice ---- */

static void fill_empty_cells(float* sum, const float* count, uint32_t R, uint32_t C, bool closed,
                             const float* down, float step) {
    for (uint32_t r = 0; r < R; ++r) {
        bool any = false;
        for (uint32_t c = 0; c < C; ++c)
            any |= count[r * C + c] > 0;
        for (uint32_t c = 0; c < C; ++c) {
            float* p = sum + 3 * (r * C + c);
            if (count[r * C + c] > 0) continue;
            if (!any) { /* a whole band is empty: the row above, one step down */
                for (int a = 0; a < 3; ++a)
                    p[a] = (r ? p[a - 3 * (int)C] : 0) + down[a] * step;
                continue;
            }
            /* the nearest filled cells either side along the row, blended by distance */
            int left = -1, right = -1, dl = 0, dr = 0;
            for (int d = 1; d < (int)C && left < 0; ++d) {
                int q = (int)c - d;
                if (q < 0 && !closed) break;
                q = (q + (int)C) % (int)C;
                if (count[r * C + (uint32_t)q] > 0) left = q, dl = d;
            }
            for (int d = 1; d < (int)C && right < 0; ++d) {
                int q = (int)c + d;
                if (q >= (int)C && !closed) break;
                q %= (int)C;
                if (count[r * C + (uint32_t)q] > 0) right = q, dr = d;
            }
            if (left < 0) left = right, dl = dr;
            if (right < 0) right = left, dr = dl;
            float t = (float)dl / (float)(dl + dr);
            const float *a = sum + 3 * (r * C + (uint32_t)left),
                        *b = sum + 3 * (r * C + (uint32_t)right);
            for (int k = 0; k < 3; ++k)
                p[k] = a[k] + (b[k] - a[k]) * t;
        }
    }
}

static bool build_particles(const rig_ctx* ctx, const work* w, tl_rig_cloth* cl, float step) {
    uint32_t R = cl->rows, C = cl->columns, N = R * C;
    float* sum = calloc(3 * (size_t)N, sizeof *sum);
    float* count = calloc(N, sizeof *count);
    cl->particles = sum;
    if (!sum || !count) {
        free(count);
        return false;
    }
    for (uint32_t i = 0; i < w->m; ++i) {
        uint32_t welded =
            i < w->verts.count ? w->verts.items[i] : w->collar.items[i - w->verts.count];
        long r = lroundf(w->g[i] / step);
        r = r < 0 ? 0 : (r >= (long)R ? (long)R - 1 : r);
        long c = lroundf(w->column[i]);
        c = cl->closed ? ((c % (long)C) + (long)C) % (long)C : (c >= (long)C ? (long)C - 1 : c);
        uint32_t cell = (uint32_t)r * C + (uint32_t)c;
        const float* p = wpos(ctx, welded);
        for (int a = 0; a < 3; ++a)
            sum[3 * cell + a] += p[a];
        count[cell] += 1;
    }
    for (uint32_t cell = 0; cell < N; ++cell)
        for (int a = 0; a < 3; ++a)
            sum[3 * cell + a] = count[cell] > 0 ? sum[3 * cell + a] / count[cell] : 0;
    float down[3] = {-ctx->skin->up[0], -ctx->skin->up[1], -ctx->skin->up[2]};
    fill_empty_cells(sum, count, R, C, cl->closed, down, step);
    /* no zero-length vertical link (the solver refuses one) */
    for (uint32_t cell = C; cell < N; ++cell)
        if (dist3(sum + 3 * cell, sum + 3 * (cell - C)) < 1e-3f * step)
            for (int a = 0; a < 3; ++a)
                sum[3 * cell + a] = sum[3 * (cell - C) + a] + down[a] * 0.5f * step;
    free(count);
    return true;
}

/* Each particle's reference joint (its safe distance is measured from its rest position skinned
 * to it, cloth.md §5): the attachment joint. The bone nearest a skirt's particles is a thigh,
 * and references riding the thighs would pull the skirt apart between the legs, the very tear
 * the lattice is there to mend; the legs reach the cloth through their colliders instead. */
static bool particle_joints(const rig_ctx* ctx, const rig_wpart* p, tl_rig_cloth* cl) {
    (void)ctx;
    uint32_t N = cl->rows * cl->columns;
    cl->particle_joints = malloc((N + 1) * sizeof *cl->particle_joints);
    if (!cl->particle_joints) return false;
    for (uint32_t i = 0; i < N; ++i)
        cl->particle_joints[i] = (uint32_t)p->attach;
    return true;
}

/* The weights of one vertex at (row coordinate, column coordinate): bilinear over the bone
 * grid, a bone standing for its segment's middle (row r + 1/2) as a chain's bone does. */
static void vertex_weights(const tl_rig_cloth* cl, uint32_t first_joint, float row, float column,
                           uint32_t joints[4], float weights[4]) {
    uint32_t BR = cl->rows - 1, BC = cl->bone_columns;
    float br = row - 0.5f;
    br = br < 0 ? 0 : (br > (float)(BR - 1) ? (float)(BR - 1) : br);
    float bc = column * 0.5f;
    if (!cl->closed) bc = bc < 0 ? 0 : (bc > (float)(BC - 1) ? (float)(BC - 1) : bc);
    uint32_t r0 = (uint32_t)br, r1 = r0 + 1 < BR ? r0 + 1 : r0;
    float fr = br - (float)r0;
    float fl = floorf(bc);
    float fc = bc - fl;
    long c0 = (long)fl, c1 = c0 + 1;
    if (cl->closed)
        c0 = ((c0 % (long)BC) + (long)BC) % (long)BC, c1 = c1 % (long)BC;
    else if (c1 >= (long)BC)
        c1 = c0;
    uint32_t j[4] = {first_joint + r0 * BC + (uint32_t)c0, first_joint + r0 * BC + (uint32_t)c1,
                     first_joint + r1 * BC + (uint32_t)c0, first_joint + r1 * BC + (uint32_t)c1};
    float x[4] = {(1 - fr) * (1 - fc), (1 - fr) * fc, fr * (1 - fc), fr * fc};
    for (int k = 0; k < 4; ++k)
        joints[k] = 0, weights[k] = 0;
    int used = 0;
    for (int k = 0; k < 4; ++k) { /* merge a clamped corner into its twin */
        int at = -1;
        for (int q = 0; q < used; ++q)
            if (joints[q] == j[k]) at = q;
        if (at < 0) at = used++, joints[at] = j[k];
        weights[at] += x[k];
    }
}

/* A vertex's column coordinate: that of the point of the rest lattice's surface (each cell two
 * triangles) nearest it. Its label's column (the collar point geodesically nearest it) sets the
 * cells the particles are centroids of, but down a skirt the labels drift from those centroids:
 * on mh-suit-skirt particle columns 10 and 11 stood 14 cm apart over the left thigh, and a
 * vertex between them in space took 0.7 of its weight from bone column 6 (the centre front,
 * 12 cm away), so its edges to neighbours weighted by position tore (Walk with the body
 * colliders: cloth p99 1.155, max 2.249, 0.10% torn; now 1.090, 1.493, 0%). */
static float lattice_column(const tl_rig_cloth* cl, const float* p) {
    uint32_t R = cl->rows, C = cl->columns, CC = cl->closed ? C : C - 1;
    float best = INFINITY, column = 0;
    for (uint32_t r = 0; r + 1 < R; ++r)
        for (uint32_t c = 0; c < CC; ++c) {
            uint32_t c1 = (c + 1) % C;
            const float *p00 = cl->particles + 3 * (r * C + c),
                        *p01 = cl->particles + 3 * (r * C + c1),
                        *p10 = cl->particles + 3 * ((r + 1) * C + c),
                        *p11 = cl->particles + 3 * ((r + 1) * C + c1);
            float b[3];
            float d = tl_mesh_triangle_nearest(p, p00, p01, p11, b); /* columns c, c+1, c+1 */
            if (d < best) best = d, column = (float)c + b[1] + b[2];
            d = tl_mesh_triangle_nearest(p, p00, p11, p10, b); /* columns c, c+1, c */
            if (d < best) best = d, column = (float)c + b[1];
        }
    return column;
}

static int compare_u32(const void* a, const void* b) {
    uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

/* Whether a collar vertex takes the attachment joint. An own collar (the garment's shell, not
 * skin around it) is where the lattice hangs from; a vertex of it bound to another region than
 * the attachment's (a skirt's waist on the thighs, as an auto-rigger binds one, under a lattice
 * hanging from the pelvis) would move with the legs between neighbours that hang from the
 * torso, and tear every edge to them. */
static bool collar_reweighted(const rig_ctx* ctx, const work* w, int32_t attach, uint32_t v) {
    return w->own && ctx->region[main_joint(ctx, v)] != ctx->region[attach];
}

/* The part's union vertices (every welded copy of the lattice's skin and of its re-weighted
 * collar) and their weights. */
static bool plan_weights(rig_ctx* ctx, const work* w, int32_t attach, tl_rig_part* part,
                         float step) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->m; ++i) {
        uint32_t v = i < w->verts.count ? w->verts.items[i] : w->collar.items[i - w->verts.count];
        if (i < w->verts.count || collar_reweighted(ctx, w, attach, v))
            n += ctx->copy_first[v + 1] - ctx->copy_first[v];
    }
    free(part->vertices);
    part->vertices = malloc((n + 1) * sizeof *part->vertices);
    part->new_joints = calloc(4 * (size_t)(n + 1), sizeof *part->new_joints);
    part->new_weights = calloc(4 * (size_t)(n + 1), sizeof *part->new_weights);
    if (!part->vertices || !part->new_joints || !part->new_weights) return false;
    part->vertex_count = n;
    n = 0;
    for (uint32_t i = 0; i < w->m; ++i) {
        uint32_t v = i < w->verts.count ? w->verts.items[i] : w->collar.items[i - w->verts.count];
        if (i >= w->verts.count && !collar_reweighted(ctx, w, attach, v)) continue;
        for (uint32_t c = ctx->copy_first[v]; c < ctx->copy_first[v + 1]; ++c)
            part->vertices[n++] = ctx->copies[c];
    }
    qsort(part->vertices, n, sizeof *part->vertices, compare_u32);
    const tl_rig_cloth* cl = &part->cloth;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t local = ctx->queue[ctx->remap[part->vertices[k]]];
        uint32_t* joints = part->new_joints + 4 * (size_t)k;
        float* weights = part->new_weights + 4 * (size_t)k;
        if (local >= w->verts.count) { /* a collar vertex: rigid on the attachment */
            joints[0] = (uint32_t)attach, weights[0] = 1;
            continue;
        }
        float row = w->g[local] / step, col = lattice_column(cl, wpos(ctx, w->verts.items[local]));
        vertex_weights(cl, part->first_new_joint, row, col, joints, weights);
    }
    return true;
}

bool rig_cloth_plan(rig_ctx* ctx, const rig_wpart* p, tl_rig_part* part, bool* built) {
    const tl_rig_def* def = ctx->def;
    *built = false;
    if (p->attach == TL_NONE || p->verts.count < def->cloth_min_vertices ||
        p->length < def->cloth_min_length * ctx->H)
        return true;
    work w = {0};
    bool ok = lattice_skin(ctx, p, &w) && w.collar.count >= 3 && geodesic_labels(ctx, &w);
    float perimeter = 0;
    bool closed = false;
    bool no_collar = w.collar.count < 3; /* nothing to hang from: reported only */
    if (ok) ok = collar_columns(ctx, &w, &perimeter, &closed);
    if (!ok) {
        work_free(&w);
        return no_collar;
    }
    float* sorted = malloc((w.verts.count + 1) * sizeof *sorted);
    if (!sorted) {
        work_free(&w);
        return false;
    }
    memcpy(sorted, w.g, w.verts.count * sizeof *sorted);
    float length = tl_mesh_percentile(sorted, w.verts.count, 99.0f);
    free(sorted);
    uint32_t segments = (uint32_t)lroundf(length / (def->cloth_row * ctx->H));
    segments = segments < 2 ? 2 : (segments > 8 ? 8 : segments);
    float step = length / (float)segments;
    tl_rig_cloth* cl = &part->cloth;
    cl->rows = segments + 1;
    cl->closed = closed;
    uint32_t C = (uint32_t)lroundf(perimeter / (step > 0 ? step : 1));
    if (closed) {
        C = C < 6 ? 6 : (C > 32 ? 32 : C);
        C += C & 1; /* bones every other column around a closed ring */
    } else {
        C = C < 3 ? 3 : (C > 33 ? 33 : C);
        C |= 1; /* both open edges carry bones */
    }
    /* the schema lists at most TL_CHAIN_MAX_BONES + 1 bones a part: fewer columns then */
    uint32_t bc = closed ? C / 2 : (C + 1) / 2, most = (TL_CHAIN_MAX_BONES + 1) / segments;
    if (bc > most) bc = most, C = closed ? 2 * bc : 2 * bc - 1;
    cl->columns = C;
    cl->bone_columns = bc;
    cl->bone_count = (cl->rows - 1) * cl->bone_columns;
    cl->settings = def->cloth_settings;
    float columns = closed ? (float)C : (float)(C - 1);
    for (uint32_t i = 0; i < w.m; ++i)
        w.column[i] =
            (i < w.verts.count ? w.column[w.label[i] < w.m ? w.label[i] : i] : w.column[i]) *
            columns;
    ok = build_particles(ctx, &w, cl, step) && particle_joints(ctx, p, cl);
    if (ok) ok = plan_weights(ctx, &w, p->attach, part, step);
    part->grown = w.grown;
    work_free(&w);
    *built = ok;
    return ok;
}
