# The Maia-ruler fit of docs/results/rating-scales.md: for each 100-point band of the
# mover's rating, the Maia band whose net has the lowest cross-entropy on the human moves
# (a parabola through the best band and its neighbours; bands at the first or last Maia
# net are left out), then a least-squares line through those optima weighted by positions.
# Usage: /usr/bin/python3 fit.py NAME=EVAL.csv ... (the CSVs of humchess eval -dims rating -csv)
import csv, sys, collections
def opts(path, lo, hi, minn):
    rows = collections.defaultdict(dict)
    for r in csv.DictReader(open(path)):
        if r['protocol'] != 'all' or r['dimension'] != 'rating' or ' ' in r['contestant']: continue
        rows[int(r['bucket'])][r['contestant']] = (int(r['n']), float(r['cross_entropy']))
    out = []
    for b in sorted(rows):
        d = rows[b]; n = next(iter(d.values()))[0]
        if n < minn or b < lo or b > hi: continue
        bands = sorted(d, key=lambda c: int(c[1:])); ce = [d[c][1] for c in bands]
        i = min(range(len(ce)), key=lambda k: ce[k])
        if i == 0 or i == len(ce)-1: continue  # at Maia's floor or ceiling: not measured
        step = int(bands[i+1][1:]) - int(bands[i][1:])
        a, bb, c = ce[i-1], ce[i], ce[i+1]; den = a - 2*bb + c
        opt = int(bands[i][1:]) + (step * 0.5 * (a - c) / den if den > 0 else 0)
        out.append((b + 50, opt, n))   # bucket b holds ratings b..b+99
    return out
def fit(pts):
    W = sum(n for _,_,n in pts); mx = sum(x*n for x,_,n in pts)/W; my = sum(y*n for _,y,n in pts)/W
    b = sum(n*(x-mx)*(y-my) for x,y,n in pts)/sum(n*(x-mx)**2 for x,_,n in pts)
    return my - b*mx, b
srcs = {}
for name, path in [a.split('=') for a in sys.argv[1:]]:
    srcs[name] = opts(path, 0, 3000, 300)
    a, b = fit(srcs[name]); srcs[name] = (a, b)
    print(name, "maia-optimum = %.0f + %.3f * rating" % (a, b), [(x, round(y)) for x,y,n in opts(path,0,3000,300)])
