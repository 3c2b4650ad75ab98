"""The create-table form: every setting the Hold'em engine supports (V7)."""

from __future__ import annotations

from typing import Any

from django import forms

STRUCTURES = [("NL", "No limit"), ("PL", "Pot limit"), ("FL", "Fixed limit")]


class CreateTableForm(forms.Form):
    name = forms.CharField(max_length=80, help_text="Unique, shown in the lobby.")
    structure = forms.ChoiceField(choices=STRUCTURES, initial="NL")
    small_blind = forms.IntegerField(min_value=1, initial=1)
    big_blind = forms.IntegerField(min_value=1, initial=2)
    ante = forms.IntegerField(min_value=0, initial=0)
    seats = forms.IntegerField(min_value=2, max_value=10, initial=6, label="Seats (2–10)")
    min_buy_in = forms.IntegerField(min_value=0, required=False, label="Minimum buy-in",
                                    help_text="Empty: 20 × big blind.")
    max_buy_in = forms.IntegerField(min_value=0, required=False, label="Maximum buy-in",
                                    help_text="Empty: 100 × big blind (NL/PL), none (FL).")
    turn_seconds = forms.IntegerField(min_value=3, max_value=3600, initial=30,
                                      label="Time per action (s)")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        small, big = data.get("small_blind"), data.get("big_blind")
        if small and big and small > big:
            self.add_error("small_blind", "The small blind cannot exceed the big blind.")
        low, high = data.get("min_buy_in"), data.get("max_buy_in")
        if low and high and low > high:
            self.add_error("max_buy_in", "The maximum buy-in is below the minimum.")
        return data

    def engine_settings(self) -> dict[str, Any]:
        data = self.cleaned_data
        settings = {k: data[k] for k in ("structure", "small_blind", "big_blind", "ante",
                                          "seats")}
        if data.get("min_buy_in"):
            settings["min_buy_in"] = data["min_buy_in"]
        if data.get("max_buy_in"):
            settings["max_buy_in"] = data["max_buy_in"]
        return settings
