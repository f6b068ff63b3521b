"""On the index that `bench/large_file.py` leaves in .cache/large-file (76,654 chunks when
run to the end): retrieval latency per retriever over 40 L-Eval questions, and the time
until a changed sample file is searchable in its new form (in-process, as the watcher
does it: re-index the folder, then the first search). The file is put back afterwards.

    .venv/bin/python bench/large_index_probe.py
"""
import json
import statistics
import time
from pathlib import Path

from assistant.config import Config
from assistant.engine import Engine

ROOT = Path(__file__).resolve().parent.parent
work = ROOT / '.cache' / 'large-file'
engine = Engine(Config(), index_dir=work / 'index')
t = time.perf_counter(); print('chunks', engine.counts()['chunks'], 'open', round(time.perf_counter() - t, 2), 's')
qs = []
for name in ('multidoc_qa.jsonl', 'natural_question.jsonl', 'scientific_qa.jsonl'):
    for line in open(ROOT.parent / 'shared' / 'data' / 'leval' / name):
        d = json.loads(line)
        ins = d.get('instructions') or []
        qs += ins[:4] if isinstance(ins, list) else []
qs = [q for q in qs if isinstance(q, str)][:40]
print(len(qs), 'questions')
out = {}
for r in ('dense', 'hop', 'auto'):
    ret = engine.retriever(r); ret.search('warm up', 5)
    lat = []
    for q in qs:
        engine.resources.forget_queries()
        t = time.perf_counter(); ret.search(q, 10); lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    out[r] = (round(statistics.median(lat), 1), round(lat[int(len(lat) * 0.95) - 1], 1))
    print(r, 'p50/p95 ms', out[r], flush=True)
doc = work / 'docs' / 'harrowmere_history.txt'
old = doc.read_text()
fact = 'In 1911 the Harrowmere harbour master, Tobias Quennell, bought a green lighthouse lamp from Oslo.'
doc.write_text(old + '\n' + fact + '\n')
try:
    t0 = time.perf_counter()
    report = engine.index_paths([work / 'docs'])
    t1 = time.perf_counter()
    hits = engine.search('Who bought a green lighthouse lamp from Oslo?', retriever='auto', k=3)
    t2 = time.perf_counter()
    top = hits[0].chunk.path if hits else None
    print(f'changed file: re-index {t1 - t0:.2f} s ({report.summary()}), then auto search {t2 - t1:.2f} s; top: {top}')
    print('found the new sentence:', any('Quennell' in h.chunk.text for h in hits))
finally:
    doc.write_text(old)
    engine.index_paths([work / 'docs'])
