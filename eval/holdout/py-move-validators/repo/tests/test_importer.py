from crm.importer import import_csv
from crm.search import find

CSV = "name,email,phone,tags\nAnn,ANN@Example.org,030 1234-567,vip;press\nBob,bob@,,\n"


def test_import_and_find():
    contacts, errors = import_csv(CSV)
    assert [c.name for c in contacts] == ["Ann"]
    assert errors == ["line 3: invalid e-mail 'bob@'"]
    assert contacts[0].phone == "+49301234567"
    assert find(contacts, "ann@example.org") == contacts
    assert find(contacts, "0301234567") == contacts
    assert find(contacts, "an") == contacts
