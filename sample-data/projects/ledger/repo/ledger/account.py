from .money import from_cents, to_cents


class InsufficientFunds(Exception):
    pass


class Account:
    def __init__(self, owner):
        self.owner = owner
        self.cents = 0
        self.history = []

    def deposit(self, amount):
        cents = to_cents(amount)
        self.cents += cents
        self.history.append(("deposit", cents))
        return self.cents

    def withdraw(self, amount):
        cents = to_cents(amount)
        if cents > self.cents:
            raise InsufficientFunds(self.owner)
        self.cents -= cents
        self.history.append(("withdraw", cents))
        return self.cents

    def balance(self):
        return from_cents(self.cents)
