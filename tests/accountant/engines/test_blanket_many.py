"""positive_part_many: the blanket's delta at many eps from one pass, each value the scalar one's."""
import numpy as np
import pytest

from accountant import make_params
from accountant.engines.blanket import blanket_law
from accountant.engines.blanket import sums as _sums
from accountant.engines.blanket.engine import positive_part, positive_part_many

SETTINGS = dict(target_delta=1e-20, bin_gap=1e-3, truncation=1e-13)


@pytest.mark.parametrize("name, kw, eps0, n, top", [
    ("collision", dict(s=8), 1.0, 10**6, 0.008),    # long windows: rows one eps at a time
    ("krr", dict(k=4), 2.0, 10**5, 0.06),           # bins refined for some eps (scalar path)
    ("krr", dict(k=16), 1.0, 10**4, 0.2),           # short chunks: rows of several eps as one path
    ("coco", dict(s=4), 0.5, 3 * 10**5, 0.02),
    ("krr", dict(k=4), 1.0, 300, 0.9),              # exact path (short windows)
])
def test_many_is_the_scalar_value_bit_for_bit(name, kw, eps0, n, top):
    law = blanket_law(make_params(name, eps0, **kw))
    # the profile's sample points, eps_max and beyond, and a repeat
    eps = list(np.linspace(0.0, top, 23)) + [law.eps_max, law.eps_max * (1 - 1e-13), eps0 + 1.0, top / 3]
    for min_bins in (None, 8):
        one = [positive_part(law, n, e, min_bins=min_bins, **SETTINGS) for e in eps]
        many = positive_part_many(law, n, eps, min_bins=min_bins, **SETTINGS)
        assert many == one  # PositivePart equality: every float the same


def test_rows_of_several_eps_as_one_path_are_each_eps_rows(monkeypatch):
    # the one-path evaluation of several eps's rows is used (not the fallback), and its rows are
    # those of Terms.row one eps at a time
    law = blanket_law(make_params("krr", 1.0, k=16))
    terms = [_sums.Terms(law, e) for e in (0.01, 0.05, 0.1, 0.15)]
    m = np.arange(2000, 2300, dtype=np.int64)
    js = np.array([800, 820, 850, 900], dtype=np.int64)
    calls = []
    real = _sums._upper_tail
    monkeypatch.setattr(_sums, "_upper_tail", lambda mm, c: (calls.append(mm.size), real(mm, c))[1])
    together = _sums._rows_together(terms, m, js)
    assert calls and calls[0] == len(terms) * m.size * js.size
    for t, rows in zip(terms, together):
        alone = t.row(np.tile(m, js.size), np.repeat(js.astype(np.float64), m.size))
        for a, b in zip(rows, alone):
            assert np.array_equal(a, b)


def test_many_rejects_what_positive_part_rejects():
    law = blanket_law(make_params("krr", 1.0, k=4))
    with pytest.raises(ValueError, match="eps"):
        positive_part_many(law, 1000, [0.1, -1.0], **SETTINGS)
    with pytest.raises(ValueError, match="target_delta"):
        positive_part_many(law, 1000, [0.1, 0.2], target_delta=None)
    with pytest.raises(ValueError, match="n must"):
        positive_part_many(law, 0, [0.1, 0.2], **SETTINGS)
