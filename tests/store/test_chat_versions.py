"""Which version a message is on (search hits, viewing an older version; decision 246)."""

from __future__ import annotations

from app.contracts.messages import Message
from app.store.chats import ChatRepository


def _pair(q: str, a: str) -> list[Message]:
    return [Message(role="user", content=q), Message(role="assistant", content=a)]


def test_a_hit_below_an_edited_question_names_that_question_s_version(chats: ChatRepository) -> None:
    cid = chats.create("c").id
    chats.append_turn(cid, "t1", _pair("q1", "a1"))  # 1, 2
    chats.append_turn(cid, "t2", _pair("q2", "a2"))  # 3, 4
    chats.append_turn(cid, "t3", _pair("q3", "a3"))  # 5, 6
    chats.append_turn(cid, "e1", _pair("q2 edited", "b2"), parent=2)  # 7, 8: version 2/2 of q2
    chats.append_turn(cid, "r1", [Message(role="assistant", content="b2 again")], parent=7)  # 9
    assert chats.leaf(cid) == 9

    off = chats.off_path(cid, [1, 2, 4, 6, 7, 8, 9])
    assert set(off) == {4, 6, 8}  # 1, 2 are shared; 7 and 9 are on the current path
    assert (off[6].cursor, off[6].index, off[6].count) == (3, 1, 2)  # deep below: q2's version 1/2
    assert (off[4].cursor, off[4].index, off[4].count) == (3, 1, 2)
    assert (off[8].cursor, off[8].index, off[8].count) == (8, 1, 2)  # the first answer to the edit

    viewed = chats.viewed(cid, 4)
    assert viewed is not None and viewed.leaf == 6  # the newest message below the hit
    assert chats.viewed(cid, 9) is None
    assert chats.leaf(cid) == 9  # nothing was switched
    shown = [s.message.content for s in chats.page_view(cid, leaf=6)[0]]
    assert shown == ["q1", "a1", "q2", "a2", "q3", "a3"]
    assert chats.leaf(cid) == 9


def test_a_chat_without_branches_has_everything_on_its_path(chats: ChatRepository) -> None:
    cid = chats.create("c").id
    chats.append_turn(cid, "t1", _pair("q", "a"))
    assert chats.off_path(cid, [1, 2, 99]) == {}
    assert chats.viewed(cid, 2) is None
