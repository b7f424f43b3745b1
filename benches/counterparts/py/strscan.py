# Program "strscan" (benches/programs/strscan.flx): build a string by appending, then scan it
# character by character.
def main():
    line = "The Quick brown fox, 42 jumps over 7 lazy dogs; ok 0123456789\n"
    s = ""
    for r in range(40000):
        s += line
    vowels = digits = spaces = lines = dsum = 0
    for c in s:
        if c.isdigit():
            digits += 1
            dsum += ord(c) - ord("0")
        elif c == " ":
            spaces += 1
        elif c == "\n":
            lines += 1
        elif c.lower() in "aeiou":
            vowels += 1
    print(len(s), vowels, digits, spaces, lines, dsum)


main()
