#!/usr/bin/env python3
# Every function of the plugin ABI carries a thread tag ([main], [frame], [worker] or [any]), and every
# registration that takes a `user` pointer says how long it must live. Run by PluginHostTests (HeaderRulesTests).
# Usage: scripts/check-header.py Sources/PluginAPI/include
import re,glob,sys
problems=[]
for path in sorted(glob.glob(sys.argv[1]+'/assist/*.h')):
    text=open(path).read()
    for m in re.finditer(r'(/\*\*(?:(?!\*/).)*?\*/)?\s*\n([^\n;]*?\(\*\s*(\w+)\)\s*\(([^;]*?)\);)([^\n]*)', text, re.S):
        comment=' '.join(((m.group(1) or '')+m.group(5)).split())
        name=m.group(3); params=m.group(4)
        issues=[]
        if not re.search(r'\[(main|frame|worker|any)\]', comment): issues.append('no thread tag')
        if 'void *' in params and re.search(r'\buser\b', params) and not m.group(2).lstrip().startswith('typedef') \
           and not re.search(r'`user`[^.]*(until|as long as|for the call|lives)', comment): issues.append('no user lifetime')
        if issues: problems.append(f"{path.split('/')[-1]} {name}: {', '.join(issues)}")
print('\n'.join(problems)); sys.exit(1 if problems else 0)
