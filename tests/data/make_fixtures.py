"""Writes the numpy fixtures read by tests/data_files.rs (run from this folder:
`python3 make_fixtures.py`). Every file is small; the values are a_k = k - 5 (or k / 4 for
floating types, k % 2 == 1 for bool) in C order, so a test knows what each holds."""


import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64",
          "uint8", "uint16", "uint32", "uint64", "float32", "float64"]


def values(dtype, shape):
    k = np.arange(int(np.prod(shape))).reshape(shape)
    if dtype == "bool":
        return (k % 2 == 1)
    if dtype.startswith("float"):
        return (k / 4).astype(dtype)
    if dtype.startswith("uint"):
        return k.astype(dtype)
    return (k - 5).astype(dtype)


for dtype in DTYPES:
    a = values(dtype, (2, 3))
    np.save(f"{dtype}_le.npy", a.astype(np.dtype(dtype).newbyteorder("<")))
    if np.dtype(dtype).itemsize > 1:
        np.save(f"{dtype}_be.npy", a.astype(np.dtype(dtype).newbyteorder(">")))
    np.save(f"{dtype}_fortran.npy", np.asfortranarray(a))

np.save("float64_3d.npy", values("float64", (2, 3, 4)))
np.save("float64_3d_fortran.npy", np.asfortranarray(values("float64", (2, 3, 4))))
np.save("float64_flat.npy", values("float64", (12,)))
np.savez("pair.npz", x=values("float64", (2, 3)), n=values("int32", (4,)))
np.savez_compressed("pair_compressed.npz", x=values("float64", (2, 3)), n=values("int32", (4,)))

# Malformed files.
with open("float64_le.npy", "rb") as f:
    whole = f.read()
with open("truncated.npy", "wb") as f:
    f.write(whole[:-7])
with open("bad_magic.npy", "wb") as f:
    f.write(b"\x93NUMPZ" + whole[6:])
header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (4000000000, 4000000000), }"
header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
with open("huge_shape.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)

# CSV files: numpy's savetxt (a header row, then the rows), and malformed ones.
np.savetxt("numpy_savetxt.csv", values("float64", (3, 4)) * 1.5e3, delimiter=",",
           header="a,b,c,d", comments="")
with open("bad_field.csv", "w") as f:
    f.write("x,y,label\n1.5,2,a\n2.5,oops,b\n")
with open("ragged.csv", "w") as f:
    f.write("x,y\n1,2\n3\n")
with open("semicolons.csv", "w") as f:
    f.write("# a comment line\nx;y\n# another\n1;2\n3;4\n")
