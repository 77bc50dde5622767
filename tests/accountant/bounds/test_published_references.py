"""Numbers from the papers' own code, computed independently and embedded here.

Balle, Bell, Gascon, Nissim, "The privacy blanket of the shuffle model" (CRYPTO 2019):
their repository BorjaBalle/amplification-by-shuffling at commit
1778a0dd16405cb10d780d5f1878ed0b1fb76f2e, ``shuffleddp.amplification_bounds.Hoeffding`` and
``BennettExact`` with ``shuffleddp.mechanisms.LDPMechanism()`` (generic eps0-LDP) and
``RRMechanism(k=k)`` (k-ary randomized response), ``get_eps(eps0, n, delta)`` at delta = 1e-6
(their default tolerance 1e-12; the delta of each value was checked to be <= 1e-6 and
monotone on a 4,000-point eps grid).  Run on this machine on 2026-11-25; none of their code
is part of this project.

What is checked: our implementations of the same relaxations (``blanket-hoeffding[-generic]``,
``blanket-bennett[-generic]``, derived in accountant/blanket.py from the paper, not from their
code) give the same numbers, and the exact blanket (``blanket``, what the relaxations relax)
is below both for k-RR at every point.

Feldman, McMillan, Talwar, "Hiding among the clones" (FOCS 2021): apple/ml-shuffling-amplification
at commit 993d285a546114bf8c70c33d053dca322a755707, ``computeamplification.numericalanalysis(n,
eps0, delta, num_iterations=20, step=1, upperbound=True/False)`` (a bisection of 20 steps on
[0, closed form]: the two ends bracket the clone pair's eps_c up to the bisection's
resolution) and ``closedformanalysis``.  Our ``clone`` (the same pair, summed exactly) must lie
in their bracket; their closed form is a looser variant of the theorem's statement (factor
(1 - e^-eps0)/(1 + e^(-eps0 - eps)) instead of (e^eps0 - 1)/(e^eps0 + 1)), above our
``clone-closed``, which is above the exact pair.

Su, Cheng, Wang (S&P 2026): Optimal-amplification-bound/Decomposition-Based-Optimal-Bounds-for-
Shuffle-DP at commit d3b769dca7f9b225abd2f20500361c899baef108, ``FFTbound(mechanism).get_eps``
(FFT of the amplification variable's law on a grid of (e^eps0 - 1)/1200 with upward rounding,
bisection to 1e-5, cupy replaced by numpy) with ``RRMechanism(eps0, k)`` (the same law as our
exact k-RR blanket, so ours must be below theirs and close) and ``LDPMechanism(eps0)`` (their
"standard clone" law, which lacks the factor 2e^eps0/(e^eps0 + 1): see
tests/test_clone_as_blanket.py; theirs lies above that law's exact value and below the proved
clone pair).
"""
import math

import pytest

from accountant.engines.blanket.law import CountLaw
from accountant.engines.blanket.engine import blanket_exact_epsilon
from accountant.bounds.registry import compute_bound

DELTA = 1e-6
# (k or None for generic eps0-LDP, n, eps0, Hoeffding eps_c, Bennett eps_c)
BALLE_ET_AL = [
    (None, 1000, 0.5, 0.18315893707541728, 0.31605587719316164),
    (None, 1000, 1.0, 0.5804436080815016, 0.6149472470770139),
    (None, 1000, 2.0, 2.0, 2.0),
    (None, 1000, 4.0, 4.0, 4.0),
    (None, 10000, 0.5, 0.05399556724800827, 0.09065318233244773),
    (None, 10000, 1.0, 0.16663436322429412, 0.16616588706372024),
    (None, 10000, 2.0, 1.0170822214790178, 0.5175010070793533),
    (None, 10000, 4.0, 4.0, 4.0),
    (None, 100000, 0.5, 0.01587521414560523, 0.02659329505905915),
    (None, 100000, 1.0, 0.04917921828809246, 0.04848820056634883),
    (None, 100000, 2.0, 0.2765006994158584, 0.1427063749090834),
    (None, 100000, 4.0, 4.0, 2.2085253516819763),
    (2, 1000, 0.5, 0.07320656050278328, 0.07583674728174332),
    (2, 1000, 1.0, 0.17191984753155504, 0.18007447859953765),
    (2, 1000, 2.0, 0.457924560692255, 0.5011549065948682),
    (2, 1000, 4.0, 3.5386376668873956, 3.9999999937618202),
    (2, 10000, 0.5, 0.021551601500871157, 0.02174423525507669),
    (2, 10000, 1.0, 0.050666552021878836, 0.05123650086808548),
    (2, 10000, 2.0, 0.13243501386272655, 0.13491803302837263),
    (2, 10000, 4.0, 0.4726577757456115, 0.5058392375291729),
    (2, 100000, 0.5, 0.0062913508088915, 0.006307172414264041),
    (2, 100000, 1.0, 0.014889703518700868, 0.014936347951240686),
    (2, 100000, 2.0, 0.039071151322148785, 0.03926710903087585),
    (2, 100000, 4.0, 0.13670243961740322, 0.13873543445017705),
    (8, 1000, 0.5, 0.08147436156682687, 0.04118809036525028),
    (8, 1000, 1.0, 0.21525194786519097, 0.10943500257131346),
    (8, 1000, 2.0, 0.7333885564900543, 0.3697041028740469),
    (8, 1000, 4.0, 4.0, 3.999999399111195),
    (8, 10000, 0.5, 0.024009190597415683, 0.011633071179634092),
    (8, 10000, 1.0, 0.06347697023559612, 0.030929097680004947),
    (8, 10000, 2.0, 0.20747896903814192, 0.10165258773639715),
    (8, 10000, 4.0, 0.9908456137129227, 0.47466861135680066),
    (8, 100000, 0.5, 0.007015831515882575, 0.0033395583302707403),
    (8, 100000, 1.0, 0.01868285120819982, 0.008951064130414885),
    (8, 100000, 2.0, 0.06121217453234504, 0.029519710077105146),
    (8, 100000, 4.0, 0.2704736265663833, 0.13139320213088104),
]


@pytest.mark.parametrize("k,n,eps0,hoeffding,bennett", BALLE_ET_AL)
def test_blanket_relaxations_match_balle_et_al_code(k, n, eps0, hoeffding, bennett):
    mech = "generic" if k is None else "krr"
    suffix = "-generic" if k is None else ""
    h = compute_bound("blanket-hoeffding" + suffix, n, eps0, DELTA, mechanism=mech, k=k)
    b = compute_bound("blanket-bennett" + suffix, n, eps0, DELTA, mechanism=mech, k=k)
    # their bisection stops just below eps0 where ours reports eps0 (no amplification)
    assert h.epsilon == pytest.approx(hoeffding, rel=2e-7)
    assert b.epsilon == pytest.approx(bennett, rel=2e-7)
    if k is not None:
        exact = compute_bound("blanket", n, eps0, DELTA, mechanism="krr", k=k)
        assert exact.epsilon <= min(hoeffding, bennett)
        if min(hoeffding, bennett) < eps0:
            assert exact.epsilon < min(hoeffding, bennett)


FMT21_NUMERICAL = [  # (n, eps0, their lower, their upper, bisection resolution)
    (1000, 0.5, 0.07052227507297357, 0.0737838600436111, 3.19e-07),
    (1000, 1.0, 0.1824080214699256, 0.1902452684726237, 6.19e-07),
    (1000, 2.0, 0.5454044342041016, 0.5627040863037109, 1.91e-06),
    (1000, 4.0, 3.9899559020996094, 3.994464874267578, 3.81e-06),
    (10000, 0.5, 0.020401450586322194, 0.021533655420530536, 9.98e-08),
    (10000, 1.0, 0.053005403126148556, 0.055561684182607915, 2.22e-07),
    (10000, 2.0, 0.15504473758386172, 0.16183767490578788, 4.99e-07),
    (10000, 4.0, 0.6008453369140625, 0.625335693359375, 3.81e-06),
    (100000, 0.5, 0.005812562490230799, 0.006200835674755946, 3.04e-08),
    (100000, 1.0, 0.015282103593473859, 0.016168286957898365, 7.18e-08),
    (100000, 2.0, 0.04502571341662782, 0.04726270437355263, 1.82e-07),
    (100000, 4.0, 0.16977014222218134, 0.1769731677695816, 5.13e-07),
]
FMT21_CLOSED = [  # (n, eps0, their closedformanalysis)
    (1000, 0.5, 0.33483647172226294),
    (1000, 1.0, 0.6495375524107758),
    (10000, 0.5, 0.10468237511990537),
    (10000, 1.0, 0.2332655961237434),
    (10000, 2.0, 0.5235509772345485),
    (100000, 0.5, 0.031914552225181435),
    (100000, 1.0, 0.07529011566478624),
    (100000, 2.0, 0.19057970666626542),
    (100000, 4.0, 0.5378040242374512),
]
SCW_FFT = [  # (k or None for their generic 'standard clone' law, n, eps0, their FFTbound eps)
    (None, 1000, 0.5, 0.06965450320418717),
    (None, 1000, 1.0, 0.1780744746881776),
    (None, 1000, 2.0, 0.5274589271888732),
    (None, 1000, 4.0, 3.9810104417591092),
    (2, 1000, 0.5, 0.06285928870542909),
    (2, 1000, 1.0, 0.14899518628526598),
    (2, 1000, 2.0, 0.39779743196105954),
    (2, 1000, 4.0, 1.8533712031612395),
    (8, 1000, 0.5, 0.0334917000295934),
    (8, 1000, 1.0, 0.08900304834974312),
    (8, 1000, 2.0, 0.29322900279998776),
    (8, 1000, 4.0, 1.5941854769420627),
    (None, 10000, 1.0, 0.051839158843173194),
    (None, 10000, 4.0, 0.5773247692432404),
    (2, 10000, 1.0, 0.043432008940153755),
    (2, 10000, 4.0, 0.4113473327102662),
    (8, 10000, 1.0, 0.026845506591266978),
    (None, 10000, 0.5, 0.020337963928629077),
    (None, 10000, 2.0, 0.14963007521977378),
    (2, 10000, 0.5, 0.018216734891775527),
    (2, 10000, 2.0, 0.1155261498533448),
    (8, 10000, 0.5, 0.009687094035752963),
    (8, 10000, 2.0, 0.08665484831334148),
]


@pytest.mark.parametrize("n,eps0,lo,up,res", FMT21_NUMERICAL)
def test_clone_pair_inside_fmt21_code_bracket(n, eps0, lo, up, res):
    ours = compute_bound("clone", n, eps0, DELTA).epsilon
    assert lo - 1.5 * res <= ours <= up
    # their lower end undercounts the pair's delta a little (up to 1.7e-4 of eps here)
    assert ours == pytest.approx(lo, rel=3e-4)


@pytest.mark.parametrize("n,eps0,theirs", FMT21_CLOSED)
def test_fmt21_closed_forms_ordered(n, eps0, theirs):
    closed = compute_bound("clone-closed", n, eps0, DELTA)
    assert closed.applicable
    assert compute_bound("clone", n, eps0, DELTA).epsilon < closed.epsilon < theirs


@pytest.mark.parametrize("k,n,eps0,theirs", SCW_FFT)
def test_against_su_cheng_wang_fft(k, n, eps0, theirs):
    if k is not None:
        # same law, theirs discretised upwards on a coarse grid: ours below, within 5%
        ours = compute_bound("blanket", n, eps0, DELTA, mechanism="krr", k=k).epsilon
        assert 0.95 * theirs <= ours <= theirs
    else:
        E = math.exp(eps0)
        no_factor = CountLaw(1.0 / (2.0 * E), 0.0, (E, 1.0, 0.0), (1.0, E, 0.0))
        exact_no_factor = blanket_exact_epsilon(no_factor, n, DELTA, rtol=1e-7).epsilon
        clone = compute_bound("clone", n, eps0, DELTA).epsilon
        assert exact_no_factor <= theirs <= 1.02 * exact_no_factor
        assert theirs < clone
