/* Card codes to a 52-bit hand mask at C speed: an optional speed-up for cards.py and melds.py.
 *
 * codes_mask(seq) returns the mask of an exact list or tuple of distinct exact-str card codes
 * ("7H", "TD": rank A23456789TJQK then suit CDHS; card index = suit * 13 + rank). For anything
 * else (another type, a non-str item, an unknown code, a repeated card) it returns None and
 * never raises: the caller then takes its pure-Python path, which names the fault.
 *
 * Built only where a C compiler is found (setup.py marks the extension optional); without it
 * the rules engine gives the same results in pure Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* One table per character of a code, indexed by its byte; 0 means "not this part of a code".
 * RANK_OF holds rank + 1 (A = 1 .. K = 13), SUIT_OF holds suit * 13 + 1 (C = 1, D = 14, ...),
 * so a valid code's card index is RANK_OF[first] + SUIT_OF[second] - 2. */
static const unsigned char RANK_OF[256] = {
    ['A'] = 1, ['2'] = 2, ['3'] = 3, ['4'] = 4, ['5'] = 5, ['6'] = 6, ['7'] = 7,
    ['8'] = 8, ['9'] = 9, ['T'] = 10, ['J'] = 11, ['Q'] = 12, ['K'] = 13,
};
static const unsigned char SUIT_OF[256] = {
    ['C'] = 1, ['D'] = 14, ['H'] = 27, ['S'] = 40,
};

static PyObject *
codes_mask(PyObject *module, PyObject *seq)
{
    (void)module;
    if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq)) {
        Py_RETURN_NONE;
    }
    /* Borrowed items: nothing below runs Python code, so the list cannot change under us. */
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    uint64_t mask = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = items[i];
        /* Exact str only (a subclass, a bool or an int is not a code); compact ASCII strings
         * keep their characters as bytes right after the header, and every code is ASCII. */
        if (!PyUnicode_CheckExact(item) || !PyUnicode_IS_COMPACT_ASCII(item)
            || PyUnicode_GET_LENGTH(item) != 2) {
            Py_RETURN_NONE;
        }
        const Py_UCS1 *chars = PyUnicode_1BYTE_DATA(item);
        unsigned rank = RANK_OF[chars[0]], suit = SUIT_OF[chars[1]];
        if (!rank || !suit) {
            Py_RETURN_NONE;
        }
        uint64_t bit = (uint64_t)1 << (rank + suit - 2);
        if (mask & bit) {
            Py_RETURN_NONE; /* a repeated card */
        }
        mask |= bit;
    }
    return PyLong_FromUnsignedLongLong(mask);
}

static PyMethodDef methods[] = {
    {"codes_mask", codes_mask, METH_O,
     "codes_mask(seq, /)\n--\n\n"
     "The 52-bit mask of a list or tuple of distinct card codes, or None for anything else."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "service.rules._speedups",
    .m_doc = "Card codes to a hand mask at C speed (optional; cards.py falls back to pure Python).",
    .m_size = 0,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModule_Create(&module_def);
}
