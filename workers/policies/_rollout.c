/* The playout of rollout.py at C speed: an optional speed-up for the expert and the analysis.
 *
 * finish(h0, h1, pile, stock, to_move, first_draw, knock_limit, big_gin, max_turns) plays a gin
 * hand on from the draw of seat `to_move` with both seats' basic habits, exactly as
 * rollout.finish_hand's loop does, and stops where that loop would score the hand:
 *   - None when the hand is drawn (a discard leaves two cards in the stock, or max_turns pass);
 *   - (seat, knocker_hand, deadwood, other_hand, big_gin) when a seat knocks or goes gin.
 * The scoring itself (lay-offs onto the knocker's melds) stays in Python.
 * `pile` and `stock` are lists of card indexes (top last); they are read, never changed.
 * `first_draw` is -1 (the basic habit), 0 (the stock) or 1 (the pile).
 * A draw from an empty pile or stock raises IndexError, as list.pop() does in Python.
 *
 * The deadwood tables are rollout.py's and melds.py's, built the same way at import:
 * a hand mask is four 13-bit suit fields (card index = suit * 13 + rank).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define SUIT_BITS 0x1FFFu
#define NO_CARD 10000
#define MAX_CARDS 52

static int RUN_DW[1 << 13];      /* least deadwood of a suit pattern with runs only */
static int DISCARD_DELTA[1 << 13]; /* least RUN_DW after one discard from the pattern, minus RUN_DW */
static uint64_t SET_REMOVALS[13][16][5]; /* [rank][held suits] -> the masks of every set on it */
static int SET_REMOVALS_N[13][16];
static int VALUE[MAX_CARDS];
static int THROW_ORDER[MAX_CARDS]; /* highest value first, then highest rank, then lowest index */

static unsigned
run_covered(unsigned p)
{
    unsigned starts = p & (p >> 1) & (p >> 2);
    return (starts | (starts << 1) | (starts << 2)) & p;
}

static int
throw_before(int a, int b)
{
    if (VALUE[a] != VALUE[b]) return VALUE[a] > VALUE[b];
    if (a % 13 != b % 13) return a % 13 > b % 13;
    return a < b;
}

static void
build_tables(void)
{
    static int value[1 << 13];
    for (unsigned p = 1; p < (1u << 13); p++) {
        unsigned low = p & -p;
        int rank = __builtin_ctz(low);
        value[p] = value[p ^ low] + (rank + 1 < 10 ? rank + 1 : 10);
    }
    for (unsigned p = 0; p < (1u << 13); p++) {
        RUN_DW[p] = value[p & ~run_covered(p)];
    }
    DISCARD_DELTA[0] = NO_CARD;
    for (unsigned p = 1; p < (1u << 13); p++) {
        int best = NO_CARD;
        for (unsigned q = p; q; q &= q - 1) {
            int v = RUN_DW[p ^ (q & -q)];
            if (v < best) best = v;
        }
        DISCARD_DELTA[p] = best - RUN_DW[p];
    }
    for (int r = 0; r < 13; r++) {
        for (int held = 0; held < 16; held++) {
            int suits[4], n = 0, k = 0;
            for (int s = 0; s < 4; s++) {
                if (held >> s & 1) suits[n++] = s;
            }
            if (n >= 3) {
                uint64_t all = 0;
                for (int i = 0; i < n; i++) all |= (uint64_t)1 << (13 * suits[i] + r);
                if (n == 4) {
                    SET_REMOVALS[r][held][k++] = all;
                    for (int i = 0; i < 4; i++) {
                        SET_REMOVALS[r][held][k++] = all & ~((uint64_t)1 << (13 * suits[i] + r));
                    }
                } else {
                    SET_REMOVALS[r][held][k++] = all;
                }
            }
            SET_REMOVALS_N[r][held] = k;
        }
    }
    for (int c = 0; c < MAX_CARDS; c++) {
        VALUE[c] = c % 13 + 1 < 10 ? c % 13 + 1 : 10;
    }
    for (int c = 0; c < MAX_CARDS; c++) {
        int i = c;
        while (i > 0 && throw_before(c, THROW_ORDER[i - 1])) {
            THROW_ORDER[i] = THROW_ORDER[i - 1];
            i--;
        }
        THROW_ORDER[i] = c;
    }
}

/* The runs-only deadwood of a mask, plus (when `discard`) the best single discard's change. */
static int
runs_only(uint64_t x, int discard)
{
    unsigned a = x & SUIT_BITS, b = x >> 13 & SUIT_BITS, c = x >> 26 & SUIT_BITS, d = x >> 39 & SUIT_BITS;
    int v = RUN_DW[a] + RUN_DW[b] + RUN_DW[c] + RUN_DW[d];
    if (discard) {
        int m = DISCARD_DELTA[a];
        if (DISCARD_DELTA[b] < m) m = DISCARD_DELTA[b];
        if (DISCARD_DELTA[c] < m) m = DISCARD_DELTA[c];
        if (DISCARD_DELTA[d] < m) m = DISCARD_DELTA[d];
        v += m;
    }
    return v;
}

/* The least over every choice of sets on the ranks in `t` (each: none, or one of its sets). */
static int
least_with_sets(uint64_t x, unsigned t, uint64_t hand, int discard)
{
    if (!t) return runs_only(x, discard);
    int r = __builtin_ctz(t);
    unsigned rest = t & (t - 1);
    int best = least_with_sets(x, rest, hand, discard);
    unsigned held = (unsigned)((hand >> r & 1) | (hand >> (r + 12) & 2) | (hand >> (r + 24) & 4) | (hand >> (r + 36) & 8));
    for (int i = 0; i < SET_REMOVALS_N[r][held]; i++) {
        int v = least_with_sets(x & ~SET_REMOVALS[r][held][i], rest, hand, discard);
        if (v < best) best = v;
    }
    return best;
}

/* melds.deadwood_mask (discard 0) and melds.deadwood_after_discard_mask (discard 1). */
static int
least(uint64_t m, int discard)
{
    unsigned a = m & SUIT_BITS, b = m >> 13 & SUIT_BITS, c = m >> 26 & SUIT_BITS, d = m >> 39 & SUIT_BITS;
    unsigned t = (a & b & (c | d)) | (c & d & (a | b)); /* ranks held in 3 or 4 suits */
    if (!t) return runs_only(m, discard);
    return least_with_sets(m, t, m, discard);
}

/* rollout.takes: take `card` only if it joins a meld and the deadwood then drops. */
static int
takes(uint64_t hand, int card)
{
    int now = least(hand, 0);
    uint64_t with_card = hand | (uint64_t)1 << card;
    if (least(with_card, 0) >= now + VALUE[card]) return 0;
    return least(with_card, 1) < now;
}

/* rollout.throw: the basic discard from 11 cards, never the card just taken; its deadwood after. */
static int
throw_card(uint64_t hand, int taken, int *left_out)
{
    int best = least(hand, 1);
    for (int i = 0; i < MAX_CARDS; i++) {
        int c = THROW_ORDER[i];
        if ((hand >> c & 1) && c != taken) {
            int left = least(hand & ~((uint64_t)1 << c), 0);
            if (left == best) {
                *left_out = left;
                return c;
            }
        }
    }
    int out = -1, out_left = 0;
    for (int i = 0; i < MAX_CARDS; i++) {
        int c = THROW_ORDER[i];
        if ((hand >> c & 1) && c != taken) {
            int left = least(hand & ~((uint64_t)1 << c), 0);
            if (out < 0 || left < out_left) {
                out = c;
                out_left = left;
            }
        }
    }
    *left_out = out_left;
    return out;
}

/* The card indexes of a list into `out`; -1 with an exception set when one is not a card index. */
static Py_ssize_t
read_cards(PyObject *list, int *out, Py_ssize_t room)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "pile and stock must be lists of card indexes");
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    if (n > room) {
        PyErr_SetString(PyExc_ValueError, "more cards than a deck holds");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long c = PyLong_AsLong(PyList_GET_ITEM(list, i));
        if (c == -1 && PyErr_Occurred()) return -1;
        if (c < 0 || c >= MAX_CARDS) {
            PyErr_SetString(PyExc_ValueError, "a card index is 0 to 51");
            return -1;
        }
        out[i] = (int)c;
    }
    return n;
}

static PyObject *
finish(PyObject *module, PyObject *args)
{
    (void)module;
    unsigned long long h0, h1;
    PyObject *pile_list, *stock_list;
    int to_move, first_draw, limit, big_gin, max_turns;
    if (!PyArg_ParseTuple(args, "KKO!O!iiipi:finish", &h0, &h1, &PyList_Type, &pile_list,
                          &PyList_Type, &stock_list, &to_move, &first_draw, &limit, &big_gin, &max_turns)) {
        return NULL;
    }
    if ((h0 | h1) >> MAX_CARDS) {
        PyErr_SetString(PyExc_ValueError, "a hand mask has 52 bits");
        return NULL;
    }
    /* every card is in one place, so the pile never holds more than the deck */
    int pile[MAX_CARDS * 2], stock[MAX_CARDS];
    Py_ssize_t n_pile = read_cards(pile_list, pile, MAX_CARDS);
    if (n_pile < 0) return NULL;
    Py_ssize_t n_stock = read_cards(stock_list, stock, MAX_CARDS);
    if (n_stock < 0) return NULL;
    uint64_t hands[2] = {h0, h1};
    int p = to_move ? 1 : 0;
    for (int turn = 0; turn < max_turns; turn++) {
        uint64_t h = hands[p];
        int taken = -1, take;
        if (turn == 0 && first_draw >= 0) {
            take = first_draw == 1;
        } else {
            take = n_pile > 0 && takes(h, pile[n_pile - 1]);
        }
        if (take) {
            if (n_pile == 0) {
                PyErr_SetString(PyExc_IndexError, "pop from empty list");
                return NULL;
            }
            taken = pile[--n_pile];
            h |= (uint64_t)1 << taken;
        } else {
            if (n_stock == 0) {
                PyErr_SetString(PyExc_IndexError, "pop from empty list");
                return NULL;
            }
            h |= (uint64_t)1 << stock[--n_stock];
        }
        if (big_gin && least(h, 0) == 0) {
            return Py_BuildValue("(iKiKO)", p, (unsigned long long)0, 0, (unsigned long long)hands[1 - p], Py_True);
        }
        int left;
        int card = throw_card(h, taken, &left);
        if (card < 0) {
            PyErr_SetString(PyExc_ValueError, "a hand with no card to throw");
            return NULL;
        }
        h &= ~((uint64_t)1 << card);
        if (left <= limit) {
            return Py_BuildValue("(iKiKO)", p, (unsigned long long)h, left, (unsigned long long)hands[1 - p], Py_False);
        }
        hands[p] = h;
        if (n_pile >= MAX_CARDS * 2) {
            PyErr_SetString(PyExc_ValueError, "more cards than a deck holds");
            return NULL;
        }
        pile[n_pile++] = card;
        if (n_stock <= 2) Py_RETURN_NONE;
        p = 1 - p;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"finish", finish, METH_VARARGS,
     "finish(h0, h1, pile, stock, to_move, first_draw, knock_limit, big_gin, max_turns, /)\n--\n\n"
     "Play a hand on with the basic habits: None when drawn, else (seat, knocker, deadwood, other, big_gin)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "workers.policies._rollout",
    .m_doc = "rollout.finish_hand's playout at C speed (optional; rollout.py falls back to pure Python).",
    .m_size = 0,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__rollout(void)
{
    build_tables();
    return PyModule_Create(&module_def);
}
