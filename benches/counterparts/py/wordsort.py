# Program "wordsort" (benches/programs/wordsort.flx): 200 000 words spelt from LCG draws,
# sorted; runs of equal words counted; the most frequent word and the number of words.
seed = 42
def spell(s):
    w = ""; x = s
    for j in range(3 + s % 5):
        w += chr(97 + x % 7); x //= 7
    return w
words = []
for i in range(200000):
    seed = (seed * 1103515245 + 12345) % 2147483648
    words.append(spell(seed % 5000))
words.sort()
counts = []; run = 1
for i in range(1, 200000):
    if words[i] == words[i - 1]:
        run += 1
    else:
        counts.append((run, words[i - 1])); run = 1
counts.append((run, words[-1]))
best = 0
for k in range(len(counts)):
    if counts[k][0] > counts[best][0]:
        best = k
print(counts[best][1] + " " + str(counts[best][0]) + " " + str(len(counts)))
