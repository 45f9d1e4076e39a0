# A name and stderr that would end, or swallow, the script element of a replay page that
# embedded them raw: answers the centre every time (its second move is on a taken square, so
# the page shows its fault and stderr), saying on stderr what an HTML parser would act on.
import sys

for line in sys.stdin:
    if line.startswith("MOVE"):
        sys.stderr.write("<!--<script> </script><script>document.title='pwned'</script> \u2028 &amp;\n")
        sys.stderr.flush()
        print(4, flush=True)
