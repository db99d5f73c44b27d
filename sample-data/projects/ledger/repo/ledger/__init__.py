from .account import Account, InsufficientFunds
from .money import to_cents

__all__ = ["Account", "InsufficientFunds", "to_cents"]
