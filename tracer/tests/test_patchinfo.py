import ast
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from deltatrace import changes, patchinfo  # noqa: E402

BUGGY = '''"""Morse code."""
morse_char = {".-": "A", ".---": "1"}
char_morse = {v: k for k, v in morse_char.items()}


class Printer:
    """Prints."""
    precedence = 1

    def level(self):
        return self.precedence


def encode(msg):
    return [char_morse[c] for c in msg]


def cover(graph, vertices):
    result = set()
    for v in vertices:
        result.add(v)

    def remaining():
        return len(vertices) - len(result)
    return result, remaining()


def pick(a, b):
    return a
'''

PATCHED = '''"""Morse code, corrected."""
morse_char = {".-": "A", ".----": "1"}
char_morse = {v: k for k, v in morse_char.items()}


class Printer:
    """Prints."""
    precedence = 2

    def level(self):
        return self.precedence


def encode(msg):
    return [char_morse[c] for c in msg]


def cover(graph, uncovered_nodes):
    result = set()
    for v in uncovered_nodes:
        result.add(v)

    def remaining():
        return len(uncovered_nodes) - len(result)
    return result, remaining()


def pick(a, b):
    return b
'''

USER = "from pkg.m import char_morse\n\n\ndef decode(code):\n    return {v: k for k, v in char_morse.items()}[code]\n"


class PatchInfoTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        for side, text in (("b", BUGGY), ("p", PATCHED)):
            os.makedirs(os.path.join(self.dir, side, "pkg"))
            with open(os.path.join(self.dir, side, "pkg", "m.py"), "w") as f:
                f.write(text)
            with open(os.path.join(self.dir, side, "pkg", "user.py"), "w") as f:
                f.write(USER)
        self.result = changes.compare(os.path.join(self.dir, "b"), os.path.join(self.dir, "p"))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_docstrings_the_patch_edited(self):
        self.assertEqual(self.result["docs"], [
            {"file": "pkg/m.py", "qualname": "<module>", "buggy": "Morse code.", "patched": "Morse code, corrected."}])

    def test_a_renamed_parameter_and_its_closure_but_not_a_changed_name(self):
        self.assertEqual(self.result["renames"], [
            {"file": "pkg/m.py", "qualname": "cover", "names": {"vertices": "uncovered_nodes"}}])
        # `return a` -> `return b`: both are locals of both versions, so it is a change, not a rename
        self.assertNotIn("pick", [r["qualname"] for r in self.result["renames"]])

    def test_module_and_class_level_names_and_those_made_from_them(self):
        names = {(m["scope"], m["name"], m.get("from")) for m in self.result["module_names"]}
        self.assertEqual(names, {("", "morse_char", None), ("Printer", "precedence", None), ("", "char_morse", "morse_char")})

    def test_their_readers_in_the_module_and_in_a_module_that_imports_them(self):
        readers = {(r["file"], r["qualname"], r["reads"]) for r in self.result["readers"]}
        self.assertEqual(readers, {("pkg/m.py", "Printer.level", "precedence"), ("pkg/m.py", "encode", "char_morse"),
                                   ("pkg/user.py", "decode", "char_morse")})

    def test_a_local_that_shadows_a_changed_name_is_no_reader(self):
        tree = ast.parse("TABLE = 1\n\ndef f():\n    TABLE = 2\n    return TABLE\n\ndef g():\n    return TABLE\n")
        self.assertEqual(patchinfo.readers(tree, [("", "TABLE")]), [("g", "TABLE")])

    def test_a_docstring_is_tagged_in_the_form_this_python_keeps_and_in_cleandoc_form(self):
        import inspect
        from deltatrace import serialize
        source = 'def f():\n    """Sum.\n\n    More text, indented.\n    """\n'
        raw = ast.get_docstring(ast.parse(source).body[0], clean=False)
        namespace = {}
        exec(compile(source, "<m>", "exec"), namespace)
        serialize.set_docs([("m.py:f", raw)])
        try:
            for form in (namespace["f"].__doc__, inspect.cleandoc(raw)):
                self.assertEqual(serialize.serialize(form)["$doc"], "m.py:f")
            self.assertEqual(serialize.serialize("Sum."), "Sum.")
        finally:
            serialize.set_docs([])

if __name__ == "__main__":
    unittest.main()
