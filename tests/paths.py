"""Where the repository is, for tests that run its commands or read its files."""
import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
