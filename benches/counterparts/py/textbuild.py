# Program "textbuild" (benches/programs/textbuild.flx): 200 000 report lines built by
# concatenation and collected in a list joined once (the idiomatic Python form), then the
# length and a checksum of the bytes.
parts = []
for i in range(200000):
    line = "row " + str(i) + ": " + str(i * 7 % 1000) + "," + str(i % 13)
    parts.append(line + "\n")
s = "".join(parts)
total = 0
for c in s.encode():
    total = (total * 31 + c) % 1000003
print(str(len(s)) + " " + str(total))
