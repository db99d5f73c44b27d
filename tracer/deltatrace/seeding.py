"""The same randomness on both sides and in every run (``--seed N``, on by default).

As pytest-randomly does, the ``random`` module (and numpy's global generator, when the
program imported numpy) is seeded with N before each test. Beyond it: a library can keep a
generator of its own, ``random.Random()`` created without a seed (sympy shuffles the order
in which its assumption system checks facts with one), which seeding the module does not
reach. Every such generator made after the tracer starts gets a seed of its own, derived
from N and the order in which the generators were made, and is reseeded to it before each
test — so two runs of the same program, and the buggy and the patched side, draw the same
numbers.
"""

import random
import sys
import weakref


class Seeder:
    def __init__(self, seed):
        self.seed = seed
        self.made = 0
        self.generators = []  # (weakref to a generator, its own seed)
        self._original = None

    def install(self):
        """From now on a generator made without a seed gets a deterministic one."""
        if self.seed is None or self._original is not None:
            return
        original = random.Random.seed
        self._original = original
        seeder = self

        def seed(gen, a=None, *args, **kwargs):
            if a is None and type(gen) is not random.SystemRandom:
                seeder.made += 1
                a = seeder.derived(seeder.made)
                try:
                    seeder.generators.append((weakref.ref(gen), a))
                except TypeError:  # a subclass without weak references: seeded once only
                    pass
            return original(gen, a, *args, **kwargs)

        seed.__wrapped__ = original
        random.Random.seed = seed

    def derived(self, index):
        return self.seed * 1_000_003 + index

    def before_test(self):
        """Seed the module, numpy's global generator and every private generator."""
        if self.seed is None:
            return
        random.seed(self.seed)
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            try:
                numpy.random.seed(self.seed)
            except Exception:  # a numpy without the legacy global generator
                pass
        original = self._original or random.Random.seed
        alive = []
        for ref, own in self.generators:
            gen = ref()
            if gen is None:
                continue
            original(gen, own)
            alive.append((ref, own))
        self.generators = alive

    def record(self):
        """What the trace's header says about it."""
        if self.seed is None:
            return None
        return {"value": self.seed, "private_generators": len(self.generators),
                "numpy": "numpy" in sys.modules}
