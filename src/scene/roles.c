/* Joint roles from names, then from the skeleton's shape; the character's axes and height.
 * docs/scene.md explains each rule with the skeletons it was made for. */
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char* tl_role_string(tl_role role) {
    static const char* names[TL_ROLE_COUNT] = {"none", "pelvis",   "spine",     "chest",   "neck",
                                               "head", "hip",      "thigh",     "shin",    "foot",
                                               "toe",  "shoulder", "upper_arm", "forearm", "hand"};
    return (unsigned)role < TL_ROLE_COUNT ? names[role] : "none";
}

const char* tl_side_string(tl_side side) {
    return side == TL_SIDE_LEFT ? "left" : side == TL_SIDE_RIGHT ? "right" : "none";
}

/* What a joint's name says, before the skeleton's shape is consulted. */
typedef enum kind {
    KIND_NONE,
    KIND_CONTROL, /* IK, pole, target, control, slot, end: never a body joint */
    KIND_DIGIT,   /* fingers and thumbs */
    KIND_TOE,
    KIND_FOOT,
    KIND_THIGH,
    KIND_SHIN,
    KIND_FOREARM,
    KIND_UPPER_ARM,
    KIND_HAND,
    KIND_SHOULDER,
    KIND_NECK,
    KIND_HEAD,
    KIND_PELVIS,
    KIND_CHEST,
    KIND_LEG, /* "leg" with no upper/lower: numbered chains (b_LeftLeg01, leg_joint_L_1) */
    KIND_ARM, /* "arm" alone: Mixamo LeftArm, CesiumMan arm_joint */
    KIND_SPINE,
} kind;

typedef struct name_info {
    kind kind;
    tl_side side;
    bool front; /* "Front"/"Fore" as a word: a quadruped's front leg */
} name_info;

/* Splits a name into lowercase words at separators, case changes and digits:
 * "mixamorig:LeftUpLeg" → mixamorig left up leg; "IKBackLeg.L" → ik back leg l. */
static int split_words(const char* name, char words[][24], int max) {
    int count = 0, len = 0;
    for (const char* p = name;; ++p) {
        char c = *p;
        bool boundary = !isalpha((unsigned char)c);
        if (!boundary && len > 0) {
            char prev = p[-1];
            bool up = isupper((unsigned char)c), prev_up = isupper((unsigned char)prev);
            bool next_low = p[1] && islower((unsigned char)p[1]);
            if ((up && !prev_up) || (up && prev_up && next_low)) boundary = true;
        }
        if (boundary && len > 0) {
            words[count][len] = '\0';
            if (++count == max) return count;
            len = 0;
        }
        if (!c) break;
        if (isalpha((unsigned char)c) && len < 23)
            words[count][len++] = (char)tolower((unsigned char)c);
    }
    return count;
}

static bool has(const char* s, const char* word) {
    return strstr(s, word) != NULL;
}

static bool has_any(const char* s, const char* const* words) {
    for (; *words; ++words)
        if (strstr(s, *words)) return true;
    return false;
}

static name_info read_name(const char* name) {
    char words[16][24];
    int n = split_words(name, words, 16);
    name_info info = {KIND_NONE, TL_SIDE_NONE, false};
    char core[400] = ""; /* the words that are not sides, run together */
    bool control = false;
    for (int i = 0; i < n; ++i) {
        const char* w = words[i];
        if (!strcmp(w, "l") || !strcmp(w, "left"))
            info.side = TL_SIDE_LEFT;
        else if (!strcmp(w, "r") || !strcmp(w, "right"))
            info.side = TL_SIDE_RIGHT;
        else {
            if (!strcmp(w, "front") || !strcmp(w, "fore")) info.front = true;
            if (!strcmp(w, "ik") || !strcmp(w, "end") || !strcmp(w, "nub")) control = true;
            strcat(core, w);
        }
    }
    static const char* const control_words[] = {"pole", "target", "ctrl",     "control",
                                                "slot", "roll",   "backpack", NULL};
    static const char* const digits[] = {"finger", "thumb", "metacarpal", "pinky", "index", NULL};
    static const char* const feet[] = {"foot", "ankle", "paw", "hoof", NULL};
    static const char* const thighs[] = {"thigh", "upleg", "upperleg", "femur", NULL};
    static const char* const shins[] = {"shin", "calf",  "lowleg", "lowerleg",
                                        "knee", "tibia", NULL};
    static const char* const forearms[] = {"forearm", "lowerarm", "lowarm", "elbow", NULL};
    static const char* const upper_arms[] = {"upperarm", "uparm", "humerus", NULL};
    static const char* const hands[] = {"hand", "wrist", "palm", NULL};
    static const char* const shoulders[] = {"shoulder", "clavicle", "collar", NULL};
    static const char* const spines[] = {"spine", "torso", "abdomen", "tummy", "belly",
                                         "waist", "back",  "body",    NULL};
    if (control || has_any(core, control_words))
        info.kind = KIND_CONTROL;
    else if (has_any(core, digits))
        info.kind = KIND_DIGIT;
    else if (has(core, "toe"))
        info.kind = KIND_TOE;
    else if (has_any(core, feet))
        info.kind = KIND_FOOT;
    else if (has_any(core, thighs))
        info.kind = KIND_THIGH;
    else if (has_any(core, shins))
        info.kind = KIND_SHIN;
    else if (has_any(core, forearms))
        info.kind = KIND_FOREARM;
    else if (has_any(core, upper_arms))
        info.kind = KIND_UPPER_ARM;
    else if (has_any(core, hands))
        info.kind = KIND_HAND;
    else if (has_any(core, shoulders))
        info.kind = KIND_SHOULDER;
    else if (has(core, "neck"))
        info.kind = KIND_NECK;
    else if (has(core, "head"))
        info.kind = KIND_HEAD;
    else if (has(core, "pelvis") || has(core, "hip"))
        info.kind = KIND_PELVIS;
    else if (has(core, "chest") || has(core, "thorax"))
        info.kind = KIND_CHEST;
    else if (has(core, "leg"))
        info.kind = KIND_LEG;
    else if (has(core, "arm") && !has(core, "armature"))
        info.kind = KIND_ARM;
    else if (has_any(core, spines))
        info.kind = KIND_SPINE;
    return info;
}

/* Working state of one classification. */
typedef struct classify {
    const tl_scene_skin* skin;
    tl_scene_joint* joints;
    uint32_t n;
    name_info* info;
    uint32_t* depth;
    float* height;      /* along the provisional up (rest-world +Y) */
    uint32_t* dominant; /* per vertex: the joint with the most weight */
    bool* below;        /* per joint: scratch of subtree_of */
} classify;

static bool is_ancestor(const classify* c, int32_t a, int32_t j) { /* a is j or above it */
    for (; j != TL_NONE; j = c->joints[j].parent)
        if (j == a) return true;
    return false;
}

/* Per joint whether it is `top` or below it, in c->below: the vertex loops then read one flag
 * per vertex rather than walk each dominant joint's parents. */
static const bool* subtree_of(const classify* c, int32_t top) {
    for (uint32_t j = 0; j < c->n; ++j)
        c->below[j] = is_ancestor(c, top, (int32_t)j);
    return c->below;
}

static int32_t common_ancestor(const classify* c, int32_t a, int32_t b) {
    for (; a != TL_NONE; a = c->joints[a].parent)
        if (is_ancestor(c, a, b)) return a;
    return TL_NONE;
}

/* The shallowest joint below `root` (inclusive when `self`) whose name matches, optionally
 * on one side and front or not; ties go to the lower joint index. */
typedef struct query {
    int32_t root; /* TL_NONE: anywhere */
    bool self;
    kind kind;
    int side;  /* tl_side, or -1: any */
    int front; /* 0 no, 1 yes, -1 any */
    const bool* excluded;
} query;

static int32_t find(const classify* c, query q) {
    int32_t best = TL_NONE;
    for (uint32_t j = 0; j < c->n; ++j) {
        const name_info* in = &c->info[j];
        if (in->kind != q.kind) continue;
        if (q.side >= 0 && (int)in->side != q.side) continue;
        if (q.front >= 0 && (int)in->front != q.front) continue;
        if (q.excluded && q.excluded[j]) continue;
        if (q.root != TL_NONE &&
            (!is_ancestor(c, q.root, (int32_t)j) || (!q.self && (int32_t)j == q.root)))
            continue;
        if (best == TL_NONE || c->depth[j] < c->depth[best]) best = (int32_t)j;
    }
    return best;
}

/* The lowest joint at or below j (the end of a leg). */
static int32_t lowest_below(const classify* c, int32_t j) {
    int32_t best = j;
    for (uint32_t k = 0; k < c->n; ++k)
        if (is_ancestor(c, j, (int32_t)k) && c->height[k] < c->height[best]) best = (int32_t)k;
    return best;
}

/* The child of `top` on the way down to `below`, or TL_NONE when below is top. */
static int32_t child_toward(const classify* c, int32_t top, int32_t below) {
    int32_t j = below;
    while (j != TL_NONE && c->joints[j].parent != top)
        j = c->joints[j].parent;
    return j;
}

/* Walks from `from` down toward `end`, skipping joints whose name is of kind `skip` (twist
 * segments named like the joint above; nothing is skipped for KIND_NONE); the first other
 * joint, or TL_NONE. */
static int32_t next_down(const classify* c, int32_t from, int32_t end, kind skip) {
    for (int32_t j = child_toward(c, from, end); j != TL_NONE; j = child_toward(c, j, end))
        if (skip == KIND_NONE || c->info[j].kind != skip) return j;
    return TL_NONE;
}

/* The knee of an unnamed leg: the first joint down the chain a quarter of the way from the
 * thigh to the leg's lowest joint (twist joints sit just below the thigh). */
static int32_t knee_below(const classify* c, int32_t thigh, int32_t end) {
    float drop = c->height[thigh] - c->height[end];
    for (int32_t j = child_toward(c, thigh, end); j != TL_NONE; j = child_toward(c, j, end))
        if (c->info[j].kind == KIND_NONE && c->height[thigh] - c->height[j] >= 0.25f * drop)
            return j;
    return TL_NONE;
}

typedef struct limb {
    int32_t girdle, upper, lower, end,
        tip; /* hip/shoulder, thigh/upper arm, shin/forearm, foot/hand, toe */
} limb;

/* Finds one side's limb below `upper` by names, with the shape as fallback. */
static limb limb_from_upper(const classify* c, int32_t upper, kind lower_kind, kind end_kind,
                            kind tip_kind, kind generic, int front) {
    limb l = {TL_NONE, upper, TL_NONE, TL_NONE, TL_NONE};
    if (upper == TL_NONE) return l;
    kind upper_kind = c->info[upper].kind;
    int32_t low = lowest_below(c, upper);
    l.lower = find(c, (query){upper, false, lower_kind, -1, front, NULL});
    if (l.lower == TL_NONE && front == 1)
        l.lower = find(c, (query){upper, false, KIND_SHIN, -1, 1, NULL});
    if (l.lower == TL_NONE) l.lower = find(c, (query){upper, false, generic, -1, -1, NULL});
    if (l.lower == TL_NONE && generic == KIND_LEG) l.lower = knee_below(c, upper, low);
    if (l.lower == TL_NONE) l.lower = next_down(c, upper, low, upper_kind);
    if (l.lower == TL_NONE) return l;
    l.end = find(c, (query){l.lower, false, end_kind, -1, -1, NULL});
    if (l.end == TL_NONE && front == 1)
        l.end = find(c, (query){l.lower, false, KIND_FOOT, -1, -1, NULL});
    if (l.end == TL_NONE) l.end = find(c, (query){l.lower, false, generic, -1, -1, NULL});
    if (l.end == TL_NONE && generic == KIND_LEG)
        l.end = next_down(c, l.lower, low, c->info[l.lower].kind);
    if (l.end == TL_NONE) return l;
    l.tip = find(c, (query){l.end, false, tip_kind, -1, -1, NULL});
    if (l.tip == TL_NONE && tip_kind == KIND_TOE)
        l.tip = find(c, (query){l.end, false, KIND_FOOT, -1, -1, NULL});
    if (l.tip == TL_NONE && tip_kind == KIND_TOE)
        l.tip = find(c, (query){l.end, false, KIND_LEG, -1, -1, NULL});
    return l;
}

/* Gives every joint from `top` down to (not including) `stop` the role, if it has none. */
static void mark_path(classify* c, int32_t top, int32_t stop, tl_role role, tl_side side) {
    for (int32_t j = child_toward(c, top, stop); j != TL_NONE && j != stop;
         j = child_toward(c, j, stop))
        if (c->joints[j].role == TL_ROLE_NONE) c->joints[j].role = role, c->joints[j].side = side;
}

static void set_role(classify* c, int32_t j, tl_role role, tl_side side) {
    if (j == TL_NONE) return;
    c->joints[j].role = role;
    c->joints[j].side = side;
}

/* Roles of one limb's joints: landmarks, the segments between them (twist joints), the
 * girdle between `base` and the upper joint, and named toes/hands further down. */
static void mark_limb(classify* c, const limb* l, int32_t base, const tl_role roles[5],
                      tl_side side) {
    if (l->upper == TL_NONE) return;
    const int32_t marks[4] = {l->upper, l->lower, l->end, l->tip};
    for (int i = 0; i < 4; ++i)
        set_role(c, marks[i], roles[i + 1], side);
    for (int i = 0; i + 1 < 4 && marks[i + 1] != TL_NONE; ++i)
        mark_path(c, marks[i], marks[i + 1], roles[i + 1], side);
    if (base != TL_NONE && is_ancestor(c, base, l->upper))
        mark_path(c, base, l->upper, roles[0], side);
    /* below the end: joints named like the end or the tip keep that role */
    int32_t end = l->tip != TL_NONE ? l->tip : l->end;
    kind tip_kind = roles[4] == TL_ROLE_TOE ? KIND_TOE : KIND_HAND;
    if (end == TL_NONE) return;
    for (uint32_t j = 0; j < c->n; ++j) {
        if (c->joints[j].role != TL_ROLE_NONE || !is_ancestor(c, l->end, (int32_t)j)) continue;
        if (c->info[j].kind == tip_kind)
            set_role(c, (int32_t)j, roles[4], side);
        else if (roles[4] == TL_ROLE_TOE && c->info[j].kind == KIND_FOOT)
            set_role(c, (int32_t)j, TL_ROLE_FOOT, side);
    }
}

static void normalize(float v[3]) {
    float n = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0) v[0] /= n, v[1] /= n, v[2] /= n;
}

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static const float* position(const tl_scene_joint* j) {
    return j->rest_world + 12;
}

/* Of the vertices whose heaviest joint lies at or below `top`, the one farthest from
 * `from` (or the lowest along the skin's up when from is NULL); TL_NONE if none. */
static int32_t farthest_vertex(const classify* c, int32_t top, const float* from) {
    const tl_scene_skin* skin = c->skin;
    int32_t best = TL_NONE;
    float best_score = -INFINITY;
    const bool* below = subtree_of(c, top);
    for (uint32_t v = 0; v < skin->vertex_count; ++v) {
        if (!below[c->dominant[v]]) continue;
        const float* p = skin->rest_positions + 3 * (size_t)v;
        float score;
        if (from) {
            float d[3] = {p[0] - from[0], p[1] - from[1], p[2] - from[2]};
            score = dot3(d, d);
        } else
            score = -dot3(p, skin->up);
        if (score > best_score) best_score = score, best = (int32_t)v;
    }
    return best;
}

/* The joint at or below `top` farthest from `from`. */
static int32_t farthest_joint(const classify* c, int32_t top, const float* from) {
    int32_t best = top;
    float best_d = -1;
    for (uint32_t j = 0; j < c->n; ++j) {
        if (!is_ancestor(c, top, (int32_t)j)) continue;
        const float* p = position(&c->joints[j]);
        float d[3] = {p[0] - from[0], p[1] - from[1], p[2] - from[2]};
        if (dot3(d, d) > best_d) best_d = dot3(d, d), best = (int32_t)j;
    }
    return best;
}

/* The signed coordinate axis nearest to the direction from `low` to `high`: 2·axis for
 * +axis, 2·axis + 1 for −axis. */
static int axis_of(const float high[3], const float low[3]) {
    float d[3] = {high[0] - low[0], high[1] - low[1], high[2] - low[2]};
    int axis = 0;
    for (int i = 1; i < 3; ++i)
        if (fabsf(d[i]) > fabsf(d[axis])) axis = i;
    return d[axis] >= 0 ? 2 * axis : 2 * axis + 1;
}

static float distance(const classify* c, int32_t a, int32_t b) {
    const float *p = position(&c->joints[a]), *q = position(&c->joints[b]);
    float d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return sqrtf(dot3(d, d));
}

/* The head from the shape: follow the path from the pelvis to the highest joint outside
 * the limbs; past the last joint where a long branch (an arm) leaves it, the head is the
 * first joint that ends the chain or branches (into a face, ears, hair). */
static int32_t head_from_shape(const classify* c, int32_t pelvis, const bool* in_limb) {
    int32_t top = TL_NONE;
    float low = INFINITY;
    for (uint32_t j = 0; j < c->n; ++j) {
        low = fminf(low, c->height[j]);
        if (in_limb[j] || !c->joints[j].deforming || c->info[j].kind == KIND_CONTROL ||
            !is_ancestor(c, pelvis, (int32_t)j) || (int32_t)j == pelvis)
            continue;
        if (top == TL_NONE || c->height[j] > c->height[top]) top = (int32_t)j;
    }
    if (top == TL_NONE) return TL_NONE;
    float long_branch = 0.25f * (c->height[top] - low);
    int32_t start = child_toward(c, pelvis, top);
    for (int32_t p = pelvis; p != top; p = child_toward(c, p, top)) {
        int32_t next = child_toward(c, p, top);
        for (uint32_t j = 0; j < c->n; ++j) /* a joint in a side branch far from p */
            if (is_ancestor(c, p, (int32_t)j) && !is_ancestor(c, next, (int32_t)j) &&
                distance(c, p, (int32_t)j) >= long_branch) {
                start = next;
                break;
            }
    }
    for (int32_t j = start; j != TL_NONE; j = child_toward(c, j, top)) {
        uint32_t children = 0;
        for (uint32_t k = 0; k < c->n; ++k)
            children += c->joints[k].parent == j;
        if (children != 1) return j;
    }
    return top;
}

/* Down a leg chain from `j`: the first joint whose bone (toward the leg's lowest joint)
 * points more down than sideways; hip girdles (MakeHuman pelvis.L) point sideways. */
static int32_t first_downward(const classify* c, int32_t j) {
    int32_t end = lowest_below(c, j);
    for (int32_t k = j; k != end; k = child_toward(c, k, end)) {
        const float *p = position(&c->joints[k]),
                    *q = position(&c->joints[child_toward(c, k, end)]);
        float dy = p[1] - q[1], dx = q[0] - p[0], dz = q[2] - p[2];
        if (dy > sqrtf(dx * dx + dz * dz)) return k;
    }
    return j;
}

/* Legs from the shape alone: the lowest joint, and of the joints about as low in another
 * long branch, the one with the deepest common ancestor (a quadruped's hind pair rather
 * than a hind and a front foot). */
static void legs_from_shape(classify* c, int32_t* a_out, int32_t* b_out) {
    *a_out = *b_out = TL_NONE;
    int32_t a = TL_NONE;
    float top = -INFINITY;
    for (uint32_t j = 0; j < c->n; ++j) {
        if (!c->joints[j].deforming || c->info[j].kind == KIND_CONTROL) continue;
        if (a == TL_NONE || c->height[j] < c->height[a]) a = (int32_t)j;
        if (c->height[j] > top) top = c->height[j];
    }
    if (a == TL_NONE) return;
    float reach = c->height[a] + 0.1f * (top - c->height[a]);
    int32_t b = TL_NONE, best_lca = TL_NONE;
    for (uint32_t j = 0; j < c->n; ++j) {
        if (!c->joints[j].deforming || c->info[j].kind == KIND_CONTROL || c->height[j] > reach)
            continue;
        int32_t lca = common_ancestor(c, a, (int32_t)j);
        if (lca == TL_NONE || lca == a || lca == (int32_t)j) continue;
        /* legs are long: toes of one foot branch off close to their tips */
        if (distance(c, lca, a) < 0.25f * (top - c->height[a]) ||
            distance(c, lca, (int32_t)j) < 0.25f * (top - c->height[a]))
            continue;
        if (b == TL_NONE || c->depth[lca] > c->depth[best_lca] ||
            (lca == best_lca && c->height[j] < c->height[b]))
            b = (int32_t)j, best_lca = lca;
    }
    if (b == TL_NONE) return;
    *a_out = child_toward(c, best_lca, a);
    *b_out = child_toward(c, best_lca, b);
}

/* The leg's end: the subtree of the joint farthest from the pelvis, or of its nearest
 * ancestor (not above the thigh) that some vertex is heaviest on. */
static int32_t leg_end(const classify* c, int32_t thigh, int32_t far_joint) {
    for (int32_t j = far_joint;; j = c->joints[j].parent) {
        const bool* below = subtree_of(c, j);
        for (uint32_t v = 0; v < c->skin->vertex_count; ++v)
            if (below[c->dominant[v]]) return j;
        if (j == thigh) return TL_NONE;
    }
}

/* Floor signal: of the signed axes across the body (not the lateral one), the one along which
 * the leg end's lowest vertex lies lowest within the whole mesh's extent: feet stand on the
 * floor. Skin weights do not enter, only which vertices the leg's end joints carry. */
static int floor_axis(const classify* c, int32_t end, int lateral_axis) {
    const tl_scene_skin* skin = c->skin;
    return tl_scene_floor_axis(skin->rest_positions, skin->vertex_count, c->dominant,
                               subtree_of(c, end), lateral_axis, false);
}

int tl_scene_floor_axis(const float* rest, uint32_t count, const uint32_t* dominant,
                        const bool* below, int lateral_axis, bool plain) {
    int best = -2;
    float best_f = INFINITY;
    /* one pass for the three axes: along -x the least is -(the most along x), exactly (a
       zero's sign aside, which neither f nor its comparison sees; a NaN left out as fminf
       does) */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    float foot_lo[3] = {INFINITY, INFINITY, INFINITY};
    float foot_hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; !plain && v < count; ++v) {
        const float* x = rest + 3 * (size_t)v;
        bool on = below[dominant[v]];
        for (int k = 0; k < 3; ++k) {
            lo[k] = x[k] < lo[k] ? x[k] : lo[k], hi[k] = x[k] > hi[k] ? x[k] : hi[k];
            if (on)
                foot_lo[k] = x[k] < foot_lo[k] ? x[k] : foot_lo[k],
                foot_hi[k] = x[k] > foot_hi[k] ? x[k] : foot_hi[k];
        }
    }
    for (int a = 0; a < 6; ++a) {
        if (a / 2 == lateral_axis) continue;
        int k = a / 2;
        float sign = a % 2 ? -1.0f : 1.0f;
        float l = a % 2 ? -hi[k] : lo[k], h = a % 2 ? -lo[k] : hi[k];
        float foot = a % 2 ? -foot_hi[k] : foot_lo[k];
        if (plain) {
            l = INFINITY, h = -INFINITY, foot = INFINITY;
            for (uint32_t v = 0; v < count; ++v) {
                float y = sign * rest[3 * (size_t)v + k];
                l = fminf(l, y), h = fmaxf(h, y);
                if (below[dominant[v]]) foot = fminf(foot, y);
            }
        }
        float f = h > l ? (foot - l) / (h - l) : INFINITY;
        if (f < best_f) best_f = f, best = a;
    }
    return best;
}

/* Up: a vote of three signals per leg, each a signed coordinate axis across the body (the
 * axis the thighs are apart along is never up): the direction from the leg end's farthest
 * vertex to the thigh, from the leg's farthest joint to the pelvis, and the floor signal.
 * The most named axis wins; a tie goes to the floor signal's axis, then to +Y. One signal
 * alone is swayed: a tail bound to the shins makes a leg's farthest vertex the tail tip, a
 * rat's folded legs point backward; the floor is not swayed by either. No legs: +Y. */
static void vote_up(classify* cp, tl_scene_skin* skin, const int32_t thigh[2]) {
    classify c = *cp;
    const tl_scene_joint* joints = c.joints;
    const tl_scene_body* body = &skin->body;
    int count[6] = {0}, floor_vote[6] = {0}, lateral_axis = -1;
    if (thigh[0] != TL_NONE && thigh[1] != TL_NONE)
        lateral_axis = axis_of(position(&joints[thigh[0]]), position(&joints[thigh[1]])) / 2;
    for (int s = 0; s < 2; ++s) {
        if (thigh[s] == TL_NONE) continue;
        int32_t top = body->pelvis != TL_NONE ? body->pelvis : thigh[s];
        int32_t far_joint = farthest_joint(&c, thigh[s], position(&joints[top]));
        int32_t end = leg_end(&c, thigh[s], far_joint);
        int a[3] = {-2, axis_of(position(&joints[top]), position(&joints[far_joint])), -2};
        if (end != TL_NONE) {
            const float* hip = position(&joints[thigh[s]]);
            int32_t v = farthest_vertex(&c, end, hip);
            a[0] = axis_of(hip, skin->rest_positions + 3 * (size_t)v);
            a[2] = floor_axis(&c, end, lateral_axis);
        }
        for (int k = 0; k < 3; ++k)
            if (a[k] >= 0 && a[k] / 2 != lateral_axis) count[a[k]]++;
        if (a[2] >= 0) floor_vote[a[2]]++;
    }
    int best = 2; /* +Y */
    for (int a = 0; a < 6; ++a) {
        if (count[a] > count[best] || (count[a] == count[best] && floor_vote[a] > floor_vote[best]))
            best = a;
    }
    if (count[best] == 0) best = 2;
    memset(skin->up, 0, sizeof skin->up);
    skin->up[best / 2] = best % 2 ? -1.0f : 1.0f;
}

/* Neck, head, chest and spine along the path from the pelvis to the head, then other torso
 * joints below the pelvis that are named like one (the rat's Hips, Torso). */
static void mark_spine(classify* cp, tl_scene_body* body, int32_t head, const bool* in_limb) {
    classify c = *cp;
    const tl_scene_joint* joints = c.joints;
    uint32_t n = c.n;
    if (head != TL_NONE) {
        set_role(&c, head, TL_ROLE_HEAD, TL_SIDE_NONE);
        for (int32_t j = joints[head].parent; j != TL_NONE && j != body->pelvis;
             j = joints[j].parent) {
            if (j == body->chest)
                set_role(&c, j, TL_ROLE_CHEST, TL_SIDE_NONE);
            else if (c.info[j].kind == KIND_NECK)
                set_role(&c, j, TL_ROLE_NECK, TL_SIDE_NONE), body->neck = j;
            else if (body->pelvis != TL_NONE)
                set_role(&c, j, TL_ROLE_SPINE, TL_SIDE_NONE);
        }
        if (body->neck == TL_NONE && joints[head].parent != TL_NONE &&
            joints[head].parent != body->chest && joints[head].parent != body->pelvis &&
            c.info[head].kind != KIND_HEAD) {
            /* an unnamed head is the end of the neck chain: its parent is the neck */
            body->neck = joints[head].parent;
            set_role(&c, body->neck, TL_ROLE_NECK, TL_SIDE_NONE);
        }
    }
    /* Other torso joints below the pelvis that are named like one (the rat's Hips, Torso). */
    if (body->pelvis != TL_NONE)
        for (uint32_t j = 0; j < n; ++j) {
            kind k = c.info[j].kind;
            if (joints[j].role != TL_ROLE_NONE || in_limb[j] || c.info[j].side != TL_SIDE_NONE ||
                !is_ancestor(&c, body->pelvis, (int32_t)j))
                continue;
            if (k == KIND_SPINE || k == KIND_PELVIS || k == KIND_CHEST)
                set_role(&c, (int32_t)j, TL_ROLE_SPINE, TL_SIDE_NONE);
        }
}

/* Lateral (right thigh to left thigh, else the upper arms, perpendicular to up), forward,
 * and the height and floor of the skin along up. */
static void skin_axes(tl_scene_skin* skin, const tl_scene_joint* joints) {
    const tl_scene_body* body = &skin->body;
    float lateral[3] = {1, 0, 0};
    if (fabsf(skin->up[0]) > 0.5f) lateral[0] = 0, lateral[2] = 1;
    const int32_t* pair = NULL;
    if (body->thigh[0] != TL_NONE && body->thigh[1] != TL_NONE)
        pair = body->thigh;
    else if (body->upper_arm[0] != TL_NONE && body->upper_arm[1] != TL_NONE)
        pair = body->upper_arm;
    if (pair) {
        float d[3];
        for (int i = 0; i < 3; ++i)
            d[i] = position(&joints[pair[0]])[i] - position(&joints[pair[1]])[i];
        float along = dot3(d, skin->up);
        for (int i = 0; i < 3; ++i)
            d[i] -= along * skin->up[i];
        if (dot3(d, d) > 0) memcpy(lateral, d, sizeof d);
    }
    normalize(lateral);
    memcpy(skin->lateral, lateral, sizeof lateral);
    const float* u = skin->up;
    skin->forward[0] = lateral[1] * u[2] - lateral[2] * u[1];
    skin->forward[1] = lateral[2] * u[0] - lateral[0] * u[2];
    skin->forward[2] = lateral[0] * u[1] - lateral[1] * u[0];
    normalize(skin->forward);

    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < skin->vertex_count; ++v) {
        float h = dot3(skin->rest_positions + 3 * (size_t)v, skin->up);
        if (h < lo) lo = h;
        if (h > hi) hi = h;
    }
    skin->height = skin->vertex_count ? hi - lo : 0;
    skin->floor = skin->vertex_count ? lo : 0;
}

void tl_scene_skin_classify(tl_scene_skin* skin, tl_scene_joint* joints) {
    uint32_t n = skin->joint_count;
    tl_scene_body* body = &skin->body;
    *body = (tl_scene_body){TL_NONE,
                            TL_NONE,
                            TL_NONE,
                            TL_NONE,
                            {TL_NONE, TL_NONE},
                            {TL_NONE, TL_NONE},
                            {TL_NONE, TL_NONE},
                            {TL_NONE, TL_NONE},
                            {TL_NONE, TL_NONE},
                            {TL_NONE, TL_NONE},
                            {TL_NONE, TL_NONE},
                            {TL_NONE, TL_NONE},
                            {TL_NONE, TL_NONE}};
    float up[3] = {0, 1, 0};
    memcpy(skin->up, up, sizeof up);
    classify c = {skin, joints, n, NULL, NULL, NULL, NULL, NULL};
    c.info = malloc(sizeof(name_info) * (n ? n : 1));
    c.depth = malloc(sizeof(uint32_t) * (n ? n : 1));
    c.height = malloc(sizeof(float) * (n ? n : 1));
    c.dominant = malloc(sizeof(uint32_t) * (skin->vertex_count ? skin->vertex_count : 1));
    bool* in_limb = calloc(n ? n : 1, sizeof(bool));
    c.below = malloc(sizeof(bool) * (n ? n : 1));
    if (!c.info || !c.depth || !c.height || !c.dominant || !in_limb || !c.below)
        goto axes; /* roles stay none */
    for (uint32_t v = 0; v < skin->vertex_count; ++v)
        c.dominant[v] = tl_scene_skin_dominant_joint(skin, v);
    for (uint32_t j = 0; j < n; ++j) {
        c.info[j] = read_name(joints[j].name);
        c.depth[j] = 0;
        for (int32_t p = joints[j].parent; p != TL_NONE; p = joints[p].parent)
            c.depth[j]++;
        c.height[j] = position(&joints[j])[1];
    }

    /* Legs: named thighs (not front legs), else numbered "leg" chains, else the shape. */
    int32_t thigh[2];
    for (int s = 0; s < 2; ++s) {
        thigh[s] = find(&c, (query){TL_NONE, true, KIND_THIGH, s, 0, NULL});
        if (thigh[s] == TL_NONE) thigh[s] = find(&c, (query){TL_NONE, true, KIND_LEG, s, 0, NULL});
    }
    if (thigh[0] == TL_NONE || thigh[1] == TL_NONE ||
        common_ancestor(&c, thigh[0], thigh[1]) == TL_NONE) {
        int32_t a, b;
        legs_from_shape(&c, &a, &b);
        if (a != TL_NONE) {
            a = first_downward(&c, a), b = first_downward(&c, b);
            bool a_left = c.info[a].side == TL_SIDE_LEFT ||
                          (c.info[a].side == TL_SIDE_NONE &&
                           position(&joints[a])[0] > position(&joints[b])[0]);
            thigh[0] = a_left ? a : b;
            thigh[1] = a_left ? b : a;
        }
    }
    static const tl_role leg_roles[5] = {TL_ROLE_HIP, TL_ROLE_THIGH, TL_ROLE_SHIN, TL_ROLE_FOOT,
                                         TL_ROLE_TOE};
    static const tl_role arm_roles[5] = {TL_ROLE_SHOULDER, TL_ROLE_UPPER_ARM, TL_ROLE_FOREARM,
                                         TL_ROLE_HAND, TL_ROLE_NONE};
    limb legs[2];
    for (int s = 0; s < 2; ++s)
        legs[s] = limb_from_upper(&c, thigh[s], KIND_SHIN, KIND_FOOT, KIND_TOE, KIND_LEG, 0);
    if (thigh[0] != TL_NONE && thigh[1] != TL_NONE) {
        int32_t pelvis = common_ancestor(&c, thigh[0], thigh[1]);
        if (pelvis != thigh[0] && pelvis != thigh[1]) body->pelvis = pelvis;
    }
    if (body->pelvis == TL_NONE) { /* one leg or none: a named pelvis, else the thigh's parent */
        body->pelvis = find(&c, (query){TL_NONE, true, KIND_PELVIS, TL_SIDE_NONE, -1, NULL});
        int32_t t = thigh[0] != TL_NONE ? thigh[0] : thigh[1];
        if (body->pelvis == TL_NONE && t != TL_NONE) body->pelvis = joints[t].parent;
    }
    for (int s = 0; s < 2; ++s) {
        mark_limb(&c, &legs[s], body->pelvis, leg_roles, (tl_side)s);
        for (uint32_t j = 0; j < n; ++j)
            if (legs[s].upper != TL_NONE && is_ancestor(&c, legs[s].upper, (int32_t)j))
                in_limb[j] = true;
    }
    set_role(&c, body->pelvis, TL_ROLE_PELVIS, TL_SIDE_NONE);

    /* Arms (a quadruped's front legs): named upper arms or front upper legs, else "arm" or
     * front "leg" chains; only below the pelvis's root and outside the legs. */
    limb arms[2];
    for (int s = 0; s < 2; ++s) {
        int32_t upper = find(&c, (query){TL_NONE, true, KIND_UPPER_ARM, s, -1, in_limb});
        if (upper == TL_NONE) upper = find(&c, (query){TL_NONE, true, KIND_THIGH, s, 1, in_limb});
        if (upper == TL_NONE) upper = find(&c, (query){TL_NONE, true, KIND_ARM, s, -1, in_limb});
        if (upper == TL_NONE) upper = find(&c, (query){TL_NONE, true, KIND_LEG, s, 1, in_limb});
        arms[s] = limb_from_upper(&c, upper, KIND_FOREARM, KIND_HAND, KIND_NONE, KIND_ARM,
                                  c.info[upper == TL_NONE ? 0 : upper].front ? 1 : -1);
        for (uint32_t j = 0; j < n; ++j)
            if (upper != TL_NONE && is_ancestor(&c, upper, (int32_t)j)) in_limb[j] = true;
    }

    /* Head: named, else the highest joint outside the limbs below the pelvis. */
    int32_t head = TL_NONE;
    for (uint32_t j = 0; j < n; ++j) {
        if (c.info[j].kind != KIND_HEAD || c.info[j].side != TL_SIDE_NONE || in_limb[j]) continue;
        if (body->pelvis != TL_NONE && !is_ancestor(&c, body->pelvis, (int32_t)j)) continue;
        if (head == TL_NONE || c.depth[j] < c.depth[head]) head = (int32_t)j;
    }
    if (head == TL_NONE && body->pelvis != TL_NONE)
        head = head_from_shape(&c, body->pelvis, in_limb);
    body->head = head;

    /* Chest: where the arms branch off the spine, if that is above the pelvis. */
    if (arms[0].upper != TL_NONE && arms[1].upper != TL_NONE && head != TL_NONE) {
        int32_t lca = common_ancestor(&c, arms[0].upper, arms[1].upper);
        if (lca != TL_NONE && lca != body->pelvis && is_ancestor(&c, lca, head) &&
            (body->pelvis == TL_NONE || is_ancestor(&c, body->pelvis, lca)))
            body->chest = lca;
    }
    if (body->chest == TL_NONE && body->pelvis != TL_NONE && head != TL_NONE)
        for (int32_t j = joints[head].parent; j != TL_NONE && j != body->pelvis;
             j = joints[j].parent)
            if (c.info[j].kind == KIND_CHEST) body->chest = j;
    for (int s = 0; s < 2; ++s) {
        mark_limb(&c, &arms[s], body->chest != TL_NONE ? body->chest : body->pelvis, arm_roles,
                  (tl_side)s);
        legs[s].girdle = legs[s].upper != TL_NONE && body->pelvis != TL_NONE
                             ? child_toward(&c, body->pelvis, legs[s].upper)
                             : TL_NONE;
        if (legs[s].girdle == legs[s].upper) legs[s].girdle = TL_NONE;
        int32_t base = body->chest != TL_NONE ? body->chest : body->pelvis;
        arms[s].girdle =
            arms[s].upper != TL_NONE && base != TL_NONE && is_ancestor(&c, base, arms[s].upper)
                ? child_toward(&c, base, arms[s].upper)
                : TL_NONE;
        if (arms[s].girdle == arms[s].upper) arms[s].girdle = TL_NONE;
    }

    mark_spine(&c, body, head, in_limb);

    for (int s = 0; s < 2; ++s) {
        body->hip[s] = legs[s].girdle, body->thigh[s] = legs[s].upper,
        body->shin[s] = legs[s].lower;
        body->foot[s] = legs[s].end, body->toe[s] = legs[s].tip;
        body->shoulder[s] = arms[s].girdle, body->upper_arm[s] = arms[s].upper;
        body->forearm[s] = arms[s].lower, body->hand[s] = arms[s].end;
    }
    vote_up(&c, skin, thigh);
axes:
    skin_axes(skin, joints);
    free(c.info), free(c.depth), free(c.height), free(c.dominant), free(in_limb), free(c.below);
}
