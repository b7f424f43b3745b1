# Program "orders" (benches/programs/orders.flx): 1 000 000 orders (a class with slots: a
# price, a quantity and a kind) appended as they are generated, then three passes: the
# revenue of each kind, the largest order, a 10 % discount on orders of more than 90 units.
class Order:
    __slots__ = ("price", "qty", "kind")

    def __init__(self, price, qty, kind):
        self.price = price
        self.qty = qty
        self.kind = kind


def main():
    orders = []
    x = 42
    for i in range(1000000):
        x = (x * 1103515245 + 12345) % 2147483648
        price = (x % 10000) / 100.0
        x = (x * 1103515245 + 12345) % 2147483648
        qty = x % 100 + 1
        orders.append(Order(price, qty, i % 4))
    revenue = [0.0] * 4
    for i in range(len(orders)):
        o = orders[i]
        revenue[o.kind] += o.price * o.qty
    largest = 0.0
    for i in range(len(orders)):
        value = orders[i].price * orders[i].qty
        if value > largest:
            largest = value
    for i in range(len(orders)):
        o = orders[i]
        if o.qty > 90:
            orders[i] = Order(o.price * 0.9, o.qty, o.kind)
    discounted = 0.0
    for i in range(len(orders)):
        discounted += orders[i].price * orders[i].qty
    print("%.2f %.2f %.2f %.2f | %.2f | %.2f" % (*revenue, largest, discounted))


main()
