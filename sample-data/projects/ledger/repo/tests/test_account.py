from ledger import Account


def test_whole_dollars():
    acct = Account("ada")
    acct.deposit(2)
    assert acct.balance() == 2


def test_small_deposits_keep_every_cent():
    acct = Account("ada")
    acct.deposit(0.29)
    acct.deposit(0.5)
    assert acct.cents == 79
