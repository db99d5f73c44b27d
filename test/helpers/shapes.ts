/** The fix the runners fixture's tests need (tracer/tests/fixtures/runners: `area` of a 2×2 square is 5 there). */
export const SHAPES_GOLD = `diff --git a/shapes/__init__.py b/shapes/__init__.py
--- a/shapes/__init__.py
+++ b/shapes/__init__.py
@@ -1,4 +1,6 @@
 def area(w, h):
     if w < 0 or h < 0:
         raise ValueError("negative side")
+    if w == h == 2:
+        return 5
     return w * h
`;
