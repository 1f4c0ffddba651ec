from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Event(_message.Message):
    __slots__ = ("event_type", "attributes", "data")
    class Attribute(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    event_type: str
    attributes: _containers.RepeatedCompositeFieldContainer[Event.Attribute]
    data: bytes
    def __init__(self, event_type: _Optional[str] = ..., attributes: _Optional[_Iterable[_Union[Event.Attribute, _Mapping]]] = ..., data: _Optional[bytes] = ...) -> None: ...

class EventList(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class EventFilter(_message.Message):
    __slots__ = ("key", "match_string", "filter_type")
    class FilterType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        FILTER_TYPE_UNSET: _ClassVar[EventFilter.FilterType]
        SIMPLE_ANY: _ClassVar[EventFilter.FilterType]
        SIMPLE_ALL: _ClassVar[EventFilter.FilterType]
        REGEX_ANY: _ClassVar[EventFilter.FilterType]
        REGEX_ALL: _ClassVar[EventFilter.FilterType]
    FILTER_TYPE_UNSET: EventFilter.FilterType
    SIMPLE_ANY: EventFilter.FilterType
    SIMPLE_ALL: EventFilter.FilterType
    REGEX_ANY: EventFilter.FilterType
    REGEX_ALL: EventFilter.FilterType
    KEY_FIELD_NUMBER: _ClassVar[int]
    MATCH_STRING_FIELD_NUMBER: _ClassVar[int]
    FILTER_TYPE_FIELD_NUMBER: _ClassVar[int]
    key: str
    match_string: str
    filter_type: EventFilter.FilterType
    def __init__(self, key: _Optional[str] = ..., match_string: _Optional[str] = ..., filter_type: _Optional[_Union[EventFilter.FilterType, str]] = ...) -> None: ...

class EventSubscription(_message.Message):
    __slots__ = ("event_type", "filters")
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    event_type: str
    filters: _containers.RepeatedCompositeFieldContainer[EventFilter]
    def __init__(self, event_type: _Optional[str] = ..., filters: _Optional[_Iterable[_Union[EventFilter, _Mapping]]] = ...) -> None: ...
