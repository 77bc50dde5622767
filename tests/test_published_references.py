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
"""
import pytest

from accountant.bounds import compute_bound

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
