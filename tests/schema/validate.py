#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validate pbench's JSON documents against the schemas in schema/ with a real validator
(python3-jsonschema, draft 2020-12), and check that every field the schemas name has a
description (the docs, kmod-free-docs/json.md, are made from them).

Usage: tests/schema/validate.py SCHEMA_DIR DOCUMENT FILE...   (DOCUMENT: stat, analyze, ...)
       tests/schema/validate.py SCHEMA_DIR --described        (every property described)
       tests/schema/validate.py SCHEMA_DIR --list LIST        (LIST: "DOCUMENT<tab>FILE" lines)
Prints one line per file, "ok FILE" or "FAIL FILE: where: why"; exits 1 on any failure.
--list validates many files of many kinds in one start (python and jsonschema take ~0.3 s of
CPU to start, and tests/schema/run.sh validates ~45 documents).
"""
import glob
import json
import os
import sys

import jsonschema


def load(schema_dir):
    schemas = {}
    for path in sorted(glob.glob(os.path.join(schema_dir, '*.schema.json'))):
        with open(path) as f:
            s = json.load(f)
        schemas[os.path.basename(path)[:-len('.schema.json')]] = s
    return schemas


def validator(schemas, name):
    """A Draft 2020-12 validator of document `name` that resolves the urn: references
    between the files, with the registry of newer jsonschema or the resolver of older ones."""
    cls = jsonschema.Draft202012Validator
    schema = schemas[name]
    try:
        from referencing import Registry, Resource
    except ImportError:
        store = {s['$id']: s for s in schemas.values()}
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return cls(schema, resolver=resolver)
    registry = Registry().with_resources(
        (s['$id'], Resource.from_contents(s)) for s in schemas.values())
    return cls(schema, registry=registry)


def undescribed(node, path, out):
    """Every property of every object in a schema carries a description."""
    if isinstance(node, dict):
        for key, sub in node.get('properties', {}).items():
            if not isinstance(sub, dict) or 'description' not in sub:
                if not (isinstance(sub, dict) and '$ref' in sub and len(sub) == 1):
                    out.append(path + '/properties/' + key)
        for key, sub in node.items():
            undescribed(sub, path + '/' + key, out)
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            undescribed(sub, '%s/%d' % (path, i), out)


def main(argv):
    schemas = load(argv[1])
    if argv[2] == '--described':
        out = []
        for name, s in schemas.items():
            undescribed(s, name, out)
        for p in out:
            print('FAIL %s: no description' % p)
        print('ok every property of %d schemas is described' % len(schemas) if not out else '')
        return 1 if out else 0
    if argv[2] == '--list':
        with open(argv[3]) as f:
            todo = [line.rstrip('\n').split('\t', 1) for line in f if line.strip()]
    else:
        todo = [(argv[2], path) for path in argv[3:]]
    validators = {}
    bad = 0
    for name, path in todo:
        if name not in validators:
            validators[name] = validator(schemas, name)
            validators[name].check_schema(schemas[name])
        bad += not check(validators[name], path)
    return 1 if bad else 0


def check(v, path):
    """Validate one file; print "ok FILE" or "FAIL FILE: where: why"."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print('FAIL %s: (top): not a JSON document: %s' % (path, e))
        return False
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = '/'.join(str(p) for p in e.absolute_path) or '(top)'
        print('FAIL %s: %s: %s (%d errors)' % (path, where, e.message[:300], len(errors)))
        return False
    print('ok %s' % path)
    return True


if __name__ == '__main__':
    sys.exit(main(sys.argv))
