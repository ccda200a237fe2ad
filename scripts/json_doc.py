#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write kmod-free-docs/json.md from the JSON Schemas in schema/: for each document pbench
writes, every field with its type and its description (which names its unit). The schemas
are the source; tests/schema/run.sh checks that the page is what this script makes of them.

Usage: scripts/json_doc.py [SCHEMA_DIR] > kmod-free-docs/json.md
"""
import glob
import json
import os
import sys

ORDER = ['stat', 'compare', 'analyze', 'check', 'list', 'jitter', 'result', 'comparison', 'scan']


def load(d):
    out = {}
    for path in glob.glob(os.path.join(d, '*.schema.json')):
        with open(path) as f:
            s = json.load(f)
        out[s['$id']] = s
    return out


def deref(schemas, node):
    """Follow $ref (urn:...#/a/b) until a schema with content."""
    while isinstance(node, dict) and '$ref' in node:
        uri, _, frag = node['$ref'].partition('#')
        target = schemas[uri]
        for part in frag.strip('/').split('/'):
            if part:
                target = target[part]
        merged = dict(target)
        merged.update({k: v for k, v in node.items() if k != '$ref'})
        node = merged
    return node


def branches(schemas, node):
    """The object-like branches of oneOf/allOf (null branches dropped)."""
    node = deref(schemas, node)
    out = [node]
    for key in ('oneOf', 'allOf'):
        for sub in node.get(key, []):
            sub = deref(schemas, sub)
            if sub.get('type') != 'null':
                out.extend(branches(schemas, sub))
    return out


def type_of(schemas, node):
    node = deref(schemas, node)
    if 'const' in node:
        return 'const %s' % json.dumps(node['const'])
    if 'enum' in node:
        return ' \\| '.join(json.dumps(v) for v in node['enum'])
    types = []
    for b in branches(schemas, node):
        t = b.get('type')
        for x in (t if isinstance(t, list) else [t] if t else []):
            if x not in types:
                types.append(x)
    for key in ('oneOf',):
        for sub in node.get(key, []):
            if deref(schemas, sub).get('type') == 'null' and 'null' not in types:
                types.append('null')
    return ' \\| '.join(types) or 'any'


def rows(schemas, node, path, out, seen):
    for b in branches(schemas, node):
        for key, sub in b.get('properties', {}).items():
            p = '%s.%s' % (path, key) if path else key
            if p in seen:
                continue
            seen.add(p)
            desc = sub.get('description') or deref(schemas, sub).get('description', '')
            out.append((p, type_of(schemas, sub), desc))
            walk(schemas, sub, p, out, seen)
        extra = b.get('additionalProperties')
        if isinstance(extra, dict):
            p = '%s.<name>' % path
            walk(schemas, extra, p, out, seen)


def walk(schemas, node, path, out, seen):
    node = deref(schemas, node)
    for b in branches(schemas, node):
        if 'items' in b:
            rows(schemas, b['items'], path + '[]', out, seen)
        if 'properties' in b or isinstance(b.get('additionalProperties'), dict):
            rows(schemas, b, path, out, seen)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else 'schema'
    schemas = load(d)
    common = schemas['urn:pbench:schema:2:common']
    print('# The JSON pbench writes')
    print()
    print('<!-- Made by scripts/json_doc.py from schema/*.schema.json; edit those, then run it. -->')
    print()
    print(common['description'])
    print()
    print('Every document starts with `schema` (%d: the shape below), `pbench_version` and `host`'
          % common['$defs']['schema']['const'])
    print('(the machine that wrote it, and when); the documents of measurements add `clock`.')
    print('The schemas are in `schema/` (installed in `share/pbench/schema/`); `make test`')
    print('validates real outputs of every command against them (`tests/schema/run.sh`).')
    for name in ORDER:
        s = schemas['urn:pbench:schema:2:%s' % name]
        print()
        print('## %s' % s['title'])
        print()
        print(s['description'] + ' Schema: `schema/%s.schema.json`.' % name)
        print()
        print('| field | type | what, and its unit |')
        print('|---|---|---|')
        out = []
        rows(schemas, s, '', out, set())
        for p, t, desc in out:
            print('| `%s` | %s | %s |' % (p, t, desc.replace('|', '\\|')))


if __name__ == '__main__':
    main()
