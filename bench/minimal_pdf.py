"""A PDF 1.4 file from its objects' bodies, numbered from 1 in the order given, the last one the catalog: the
header, each object, the cross-reference table and the trailer. Shared by the read-text benches that write
their documents."""


def write(objects, path):
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    table = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, len(objects), table)
    with open(path, "wb") as file:
        file.write(out)
