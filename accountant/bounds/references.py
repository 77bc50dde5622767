"""BibTeX of the papers behind the bounds of :data:`accountant.bounds.registry.REGISTRY`.

Each registry entry names its keys (``BoundSpec.cite``); an exported LaTeX table cites them
in its column heads and writes these entries beside it.  Facts checked against the papers
themselves (arXiv pages) or the reference list of Wang et al.'s numerical-vector paper; page numbers, volumes and
DOIs are left out where they were not checked (never guessed).
"""
from __future__ import annotations

from typing import Iterable

BIBTEX: dict[str, str] = {
    "erlingsson2019amplification": r"""@inproceedings{erlingsson2019amplification,
  author    = {Erlingsson, {\'U}lfar and Feldman, Vitaly and Mironov, Ilya and Raghunathan, Ananth and Talwar, Kunal and Thakurta, Abhradeep},
  title     = {Amplification by Shuffling: From Local to Central Differential Privacy via Anonymity},
  booktitle = {Proceedings of the {ACM-SIAM} Symposium on Discrete Algorithms ({SODA})},
  publisher = {SIAM},
  year      = {2019}
}""",
    "balle2019blanket": r"""@inproceedings{balle2019blanket,
  author    = {Balle, Borja and Bell, James and Gasc{\'o}n, Adri{\`a} and Nissim, Kobbi},
  title     = {The Privacy Blanket of the Shuffle Model},
  booktitle = {Advances in Cryptology -- {CRYPTO} 2019},
  publisher = {Springer},
  year      = {2019}
}""",
    "feldman2021hiding": r"""@inproceedings{feldman2021hiding,
  author    = {Feldman, Vitaly and McMillan, Audra and Talwar, Kunal},
  title     = {Hiding Among the Clones: A Simple and Nearly Optimal Analysis of Privacy Amplification by Shuffling},
  booktitle = {{IEEE} Symposium on Foundations of Computer Science ({FOCS})},
  publisher = {IEEE},
  year      = {2021}
}""",
    "feldman2023stronger": r"""@inproceedings{feldman2023stronger,
  author    = {Feldman, Vitaly and McMillan, Audra and Talwar, Kunal},
  title     = {Stronger Privacy Amplification by Shuffling for {R}{\'e}nyi and Approximate Differential Privacy},
  booktitle = {Proceedings of the {ACM-SIAM} Symposium on Discrete Algorithms ({SODA})},
  publisher = {SIAM},
  year      = {2023}
}""",
    "wang2023numerical": r"""@misc{wang2023numerical,
  author        = {Wang, Shaowei and Li, Jin and Li, Yuntong and Li, Jin and Yang, Wei and Yan, Hongyang},
  title         = {Differentially Private Numerical Vector Analyses in the Local and Shuffle Model},
  howpublished  = {arXiv:2304.04410},
  eprint        = {2304.04410},
  archivePrefix = {arXiv},
  year          = {2023}
}""",
    "su2026decomposition": r"""@inproceedings{su2026decomposition,
  author    = {Su, Pengcheng and Cheng, Haibo and Wang, Ping},
  title     = {Decomposition-Based Optimal Bounds for Privacy Amplification via Shuffling},
  booktitle = {{IEEE} Symposium on Security and Privacy ({S\&P})},
  year      = {2026},
  note      = {arXiv:2504.07414}
}""",
}


def bibtex(keys: Iterable[str]) -> str:
    """The BibTeX entries for ``keys`` (each once, in first-seen order)."""
    seen: list[str] = []
    for k in keys:
        if k not in BIBTEX:
            raise ValueError(f"no BibTeX entry for key {k!r} (known: {', '.join(BIBTEX)})")
        if k not in seen:
            seen.append(k)
    return "".join(BIBTEX[k] + "\n\n" for k in seen)
